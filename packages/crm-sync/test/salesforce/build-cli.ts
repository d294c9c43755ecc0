// The service-crm command (or another entry) built from src into `outDir` for tests that run it
// in a child process (the package build is not needed). Returns the path of the built file.
import { join } from 'node:path';
import { build } from 'tsup';

export const packageDir = join(import.meta.dirname, '../..');

export function buildCli(outDir: string): Promise<string> {
  return buildEntry(outDir, 'cli', 'src/cli.ts');
}

/** One entry of the package (`src/...`) built as the package builds it; returns its path. */
export async function buildEntry(outDir: string, name: string, source: string): Promise<string> {
  await build({
    // The package's own build configuration, so that the tests run the bin as it ships (its
    // entry checks the Node.js version before the command is loaded), as ES module only.
    config: join(packageDir, 'tsup.config.ts'),
    entry: { [name]: join(packageDir, source) },
    outDir,
    format: ['esm'],
    dts: false,
    sourcemap: false,
    silent: true,
    clean: true,
    // As in the package build: dependencies stay imports (tsup reads them from the cwd's package).
    external: [/^[^./]/],
  });
  return join(outDir, `${name}.js`);
}
