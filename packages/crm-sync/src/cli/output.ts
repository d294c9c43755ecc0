/** Exit codes, the error a command throws to end with one, and terminal output helpers. */
import { redact } from '../salesforce/errors.js';

export const EXIT = {
  ok: 0,
  /** Something unexpected: a bug or an answer the CLI does not understand. */
  internal: 1,
  /** Bad flags, a bad config file or a bad input file. */
  usage: 2,
  /** No credentials, or they no longer work: log in again. */
  auth: 3,
  /** The command ran, but some records or fields failed (see the output). */
  partial: 4,
  /** Stopped before the org's daily API limit: run again later to resume. */
  apiLimit: 5,
  /** The connecting user lacks permissions the command needs. */
  permissions: 6,
  /**
   * The org's policy refuses the connection (Login IP Ranges, Login Hours, an unapproved app, an
   * inactive user, the API off): an admin changes a setting; logging in again does not help.
   */
  orgPolicy: 7,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];

/** An error with the exit code it ends the command with; its message is one line with the remedy. */
export class CliError extends Error {
  constructor(
    readonly exitCode: ExitCode,
    message: string,
    /** For `--json` errors; default: the exit code's name (`usage`, `auth`, ...). */
    readonly code?: string,
  ) {
    super(message);
  }
}

export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  /** A progress line that rewrites itself on a terminal; nothing when stderr is not a TTY. */
  readonly progress: (line: string) => void;
  /** Standard input to its end (a secret given as `--access-token -`). */
  readonly stdin: () => Promise<string>;
}

export function processIo(): Io {
  const tty = process.stderr.isTTY === true;
  let open = false;
  return {
    out: (line) => {
      if (open) process.stderr.write('\n');
      open = false;
      process.stdout.write(`${redact(line)}\n`);
    },
    err: (line) => {
      if (open) process.stderr.write('\n');
      open = false;
      process.stderr.write(`${redact(line)}\n`);
    },
    progress: (line) => {
      if (!tty) return;
      open = true;
      process.stderr.write(`\r\x1b[2K${line}`);
    },
    stdin: async () => {
      if (process.stdin.isTTY) process.stderr.write('Paste it, then press Enter and Ctrl-D:\n');
      let text = '';
      for await (const chunk of process.stdin.setEncoding('utf8')) text += chunk;
      return text;
    },
  };
}

/** `[######......] 450/1000 updates` */
export function bar(done: number, total: number, label: string, width = 24): string {
  const filled = total === 0 ? width : Math.round((done / total) * width);
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} ${label}`;
}
