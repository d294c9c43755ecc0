/** The exit codes of service-lookup (documented in the README). */
export const EXIT = {
  ok: 0,
  /** A runtime failure: the store could not be opened, a file could not be read, the port is taken. */
  failure: 1,
  /** Bad flags or arguments. */
  usage: 2,
  /** `ingest` finished, but rejected lines (the others are stored; see `--rejects`). */
  rejected: 3,
  /** Stopped by SIGINT or SIGTERM before it finished. */
  interrupted: 130,
} as const;

export type ExitCode = (typeof EXIT)[keyof typeof EXIT];
