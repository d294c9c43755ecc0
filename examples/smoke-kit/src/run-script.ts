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
  const env = { ...process.env, ...options.env };
  for (const name of Object.keys(env)) {
    const dropped = options.withoutEnvPrefixes?.some((prefix) => name.startsWith(prefix));
    if (dropped && options.env?.[name] === undefined) delete env[name];
  }
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, options.args, {
      cwd: options.cwd,
      env,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const { code, stdout, stderr } = error as ScriptRun;
    return { code, stdout, stderr };
  }
}
