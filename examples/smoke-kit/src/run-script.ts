import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

export interface ScriptRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `node <args>` in `cwd` as a user would, to its end, and resolves with its exit code and
 * output (never rejects on a failing exit). Variables whose names start with one of
 * `withoutEnvPrefixes` are removed from this process's environment first (e.g. `SF_`, so a
 * developer's own credentials never reach a test), then `env` is added.
 */
export async function runScript(options: {
  cwd: string;
  args: string[];
  env?: Record<string, string>;
  withoutEnvPrefixes?: string[];
}): Promise<ScriptRun> {
  const dropped = options.withoutEnvPrefixes ?? [];
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !dropped.some((p) => name.startsWith(p))),
  );
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, options.args, {
      cwd: options.cwd,
      env: { ...inherited, ...options.env },
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as ScriptRun;
    return { code, stdout, stderr };
  }
}
