/**
 * Opens a URL in the user's browser, as the `sf` CLI does for `org login web`: the command in
 * `BROWSER` when it is set (a command line; `%s` stands for the URL, otherwise the URL is added
 * as the last argument), else the platform's opener (`open` on macOS, `start` on Windows,
 * `xdg-open` elsewhere).
 */
import { spawn } from 'node:child_process';

export interface Opener {
  readonly command: string;
  readonly args: readonly string[];
  /** Windows' `start` is a `cmd` builtin whose arguments must reach it as written. */
  readonly verbatim?: boolean;
}

/** The command that opens `url` here. */
export function opener(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
): Opener {
  const custom = env.BROWSER?.trim();
  if (custom) {
    const [command = '', ...rest] = custom.split(/\s+/);
    const args = rest.includes('%s') ? rest.map((a) => (a === '%s' ? url : a)) : [...rest, url];
    return { command, args };
  }
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') {
    // `start "" URL`: the empty title keeps a quoted URL from being taken as the window title,
    // and `^&` keeps cmd from splitting the URL at its query's `&`.
    return {
      command: 'cmd',
      args: ['/c', 'start', '""', url.replaceAll('&', '^&')],
      verbatim: true,
    };
  }
  return { command: 'xdg-open', args: [url] };
}

/**
 * Starts the opener and lets it run on its own. Resolves when it started; rejects with the
 * reason when it could not (no such command), so the caller can ask the user to open the URL.
 * An opener that starts but then fails (`xdg-open` with no browser to hand the URL to exits
 * non-zero) is reported later through `onFailure`.
 */
export function openBrowser(
  url: string,
  env: NodeJS.ProcessEnv = process.env,
  platform: NodeJS.Platform = process.platform,
  onFailure: (reason: string) => void = () => {},
): Promise<void> {
  const { command, args, verbatim } = opener(url, env, platform);
  return new Promise((resolve, reject) => {
    const child = spawn(command, [...args], {
      detached: true,
      stdio: 'ignore',
      windowsVerbatimArguments: verbatim === true,
    });
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(new Error(`${command}: ${error.code === 'ENOENT' ? 'not found' : error.message}`)),
    );
    child.once('spawn', () => {
      child.unref();
      resolve();
    });
    child.once('exit', (code) => {
      if (code) onFailure(`${command} exited with code ${code}`);
    });
  });
}
