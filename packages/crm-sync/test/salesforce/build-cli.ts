// The service-crm command built from src into `outDir` for tests that run it as a child process
// (the package build is not needed). Returns the path of the built command.
import { join } from 'node:path';
import { build } from 'tsup';

export const packageDir = join(import.meta.dirname, '../..');

export async function buildCli(outDir: string): Promise<string> {
  await build({
    // The package's own build configuration, so that the tests run the bin as it ships (its
    // entry checks the Node.js version before the command is loaded), as ES module only.
    config: join(packageDir, 'tsup.config.ts'),
    entry: { cli: join(packageDir, 'src/cli.ts') },
    outDir,
    format: ['esm'],
    dts: false,
    sourcemap: false,
    silent: true,
    clean: true,
    // As in the package build: dependencies stay imports (tsup reads them from the cwd's package).
    external: [/^[^./]/],
  });
  return join(outDir, 'cli.js');
}
