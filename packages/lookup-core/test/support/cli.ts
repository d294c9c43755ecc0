/** Running the service-lookup command from the TypeScript sources, as the CLI tests do. */
import { join } from 'node:path';

/** The package directory: the command runs with it as the working directory. */
export const PACKAGE = join(import.meta.dirname, '../..');

/**
 * Node's arguments that run `src/cli.ts` (types stripped by Node itself); `preload` modules are
 * imported before it. The command's own arguments follow.
 */
export const cliFromSource = (preload: string[] = []): string[] => [
  '--import',
  './test/support/source-hooks.mjs',
  ...preload.flatMap((module) => ['--import', module]),
  'src/cli.ts',
];
