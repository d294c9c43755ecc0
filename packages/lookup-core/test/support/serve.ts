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
 * listens and its curl line.
 */
export function serve(args: string[], env: Record<string, string> = {}): Promise<Served> {
  const child = spawn(process.execPath, [...cliFromSource(), 'serve', '--port', '0', ...args], {
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
