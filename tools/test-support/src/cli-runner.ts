// Runs a Node command (a package's built bin) as a child process, as a user's shell would: its own
// environment (nothing inherited but PATH), an optional standard input, a working directory.
import { spawn } from 'node:child_process';

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliRunOptions {
  readonly env?: Record<string, string>;
  /** Written to standard input, which is then closed (default: closed at once). */
  readonly stdin?: string;
  readonly cwd: string;
  /** Node's own arguments before the command (e.g. `--import` of a loader hook). */
  readonly node?: readonly string[];
}

export function runCli(
  cli: string,
  args: readonly string[],
  options: CliRunOptions,
): Promise<CliRun> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ...options.env };
  const child = spawn(process.execPath, [...(options.node ?? []), cli, ...args], {
    // A cast: Next.js's types (seen from examples/nextjs) require NODE_ENV in every environment.
    env: env as NodeJS.ProcessEnv,
    cwd: options.cwd,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  child.stdin.end(options.stdin ?? '');
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}
