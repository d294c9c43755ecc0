// The service-crm command as a child process against an emulated org, and a way to kill it at
// the worst moment: when the org has applied a request and the command has not heard back.
import { type ChildProcess, spawn } from 'node:child_process';
import type { Emulator } from '@service/salesforce-emulator';

/**
 * Runs the built command `cli` with its own home, connected to `emulator` by environment
 * (`env` adds to it or replaces a part, e.g. SF_INSTANCE_URL to reach the org through a proxy).
 */
export function start(
  cli: string,
  home: string,
  emulator: Emulator,
  args: string[],
  env: Record<string, string> = {},
): ChildProcess {
  const tokens = emulator.issueTokens();
  return spawn(process.execPath, [cli, ...args], {
    env: {
      PATH: process.env.PATH,
      SERVICE_CRM_HOME: home,
      SF_INSTANCE_URL: tokens.instanceUrl,
      SF_ACCESS_TOKEN: tokens.accessToken,
      ...env,
    },
    cwd: home,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

export function finish(child: ChildProcess) {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise<{
    code: number | null;
    signal: string | null;
    stdout: string;
    stderr: string;
  }>((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr })));
}

/**
 * Kills `child` the moment the org has applied the `nth` request matching `method path` (its
 * answer decided, not yet sent).
 */
export function killWhenApplied(
  emulator: Emulator,
  child: ChildProcess,
  method: string,
  path: RegExp,
  nth: number,
) {
  let seen = 0;
  const push = emulator.requests.push.bind(emulator.requests);
  emulator.requests.push = (...records) => {
    for (const record of records) {
      if (record.method !== method || !path.test(record.path) || ++seen !== nth) continue;
      let status = 0;
      Object.defineProperty(record, 'status', {
        get: () => status,
        set: (value: number) => {
          status = value;
          child.kill('SIGKILL');
        },
      });
    }
    return push(...records);
  };
  return () => {
    emulator.requests.push = push;
  };
}
