/** Running the service-lookup command from the TypeScript sources, as the CLI tests do. */
import { spawn } from 'node:child_process';
import { join } from 'node:path';

/** The package directory: the command runs with it as the working directory. */
export const PACKAGE = join(import.meta.dirname, '../..');

/**
 * Node's arguments that run `src/cli/cli.ts` (types stripped by Node itself); `preload` modules are
 * imported before it. The command's own arguments follow.
 */
export const cliFromSource = (preload: string[] = []): string[] => [
  '--import',
  './test/support/source-hooks.mjs',
  ...preload.flatMap((module) => ['--import', module]),
  'src/cli/cli.ts',
];

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command from the sources to its end and collects what it printed; `node` options first. */
export function runCli(args: string[], node: string[] = []): Promise<CliRun> {
  const child = spawn(process.execPath, [...node, ...cliFromSource(), ...args], {
    cwd: PACKAGE,
    env: { ...process.env, SERVICE_SECRET_KEYS: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => (out.stdout += d));
  child.stderr?.on('data', (d) => (out.stderr += d));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, ...out })));
}
