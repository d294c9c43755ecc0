/** A real `service-lookup serve` process (run from the sources) and what it printed. */
import { type ChildProcess, spawn } from 'node:child_process';
import { cliFromSource, PACKAGE } from './cli.js';

export interface Served {
  child: ChildProcess;
  origin: string;
  stdout(): string;
  stderr(): string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts `service-lookup serve ARGS` with the environment given (no DATABASE_URL or
 * SERVICE_SECRET_KEYS from the test run's own unless passed) and resolves once it printed where it
 * listens and its curl line. `openFiles` sets its open-file limit.
 */
export function serve(
  args: string[],
  env: Record<string, string> = {},
  options: { openFiles?: number } = {},
): Promise<Served> {
  const command = [process.execPath, ...cliFromSource(), 'serve', '--port', '0', ...args];
  // `ulimit -n` in a shell that then becomes the command: the limit applies to it alone.
  const [file, ...argv] =
    options.openFiles === undefined
      ? command
      : ['sh', '-c', `ulimit -n ${options.openFiles} && exec "$@"`, 'sh', ...command];
  const child = spawn(file as string, argv, {
    cwd: PACKAGE,
    env: { ...process.env, SERVICE_SECRET_KEYS: '', DATABASE_URL: '', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr?.on('data', (d) => (stderr += d));
  const exit = new Promise<number | null>((resolve) => child.on('close', resolve));
  return new Promise((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      stdout += d;
      const origin = stdout.match(/listening on (http:\/\/[^\s]+)\ntry: curl .*\n/)?.[1];
      if (origin)
        resolve({
          child,
          origin,
          stdout: () => stdout,
          stderr: () => stderr,
          stop: () => {
            child.kill('SIGTERM');
            return exit;
          },
        });
    });
    exit.then((code) => reject(new Error(`serve exited (${code}) before listening: ${stderr}`)));
  });
}

/** POSTs a lookup with a Bearer key. */
export const lookup = (origin: string, key: string, body: object) =>
  fetch(`${origin}/api/service/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
