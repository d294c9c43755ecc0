/** A real `service-lookup serve` process (run from the sources) and what it printed. */
import { ServerProcess } from '@service/test-support';
import { cliFromSource, PACKAGE } from './cli.js';

export interface Served {
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
export async function serve(
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
  const { server, baseUrl } = await ServerProcess.start({
    command: file as string,
    args: argv,
    cwd: PACKAGE,
    env: { SERVICE_SECRET_KEYS: '', DATABASE_URL: '', ...env },
    ready: /listening on (http:\/\/[^\s]+)\ntry: curl .*\n/,
  });
  return {
    origin: baseUrl,
    stdout: () => server.stdout,
    stderr: () => server.stderr,
    stop: () => server.stop(),
  };
}

/** POSTs a lookup with a Bearer key. */
export const lookup = (origin: string, key: string, body: object) =>
  fetch(`${origin}/api/service/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
