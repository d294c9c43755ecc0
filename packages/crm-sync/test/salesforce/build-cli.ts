// The service-crm command built from src into `outDir` for tests that run it as a child process
// (the package build is not needed). Returns the path of the built command.
import { join } from 'node:path';
import { build } from 'tsup';

export const packageDir = join(import.meta.dirname, '../..');

export async function buildCli(outDir: string): Promise<string> {
  await build({
    entry: { cli: join(packageDir, 'src/cli.ts') },
    outDir,
    format: ['esm'],
    dts: false,
    silent: true,
    config: false,
    clean: true,
    target: 'node22',
    // As in the package build: dependencies stay imports (tsup reads them from the cwd's package).
    external: [/^[^./]/],
  });
  return join(outDir, 'cli.js');
}
