/** Errors a caller of the store can branch on, by class or by `code`. */

/** What went wrong, as a stable string to branch on. */
export type LookupCoreErrorCode =
  /** The database cannot be reached right now (`StoreUnavailableError`). */
  | 'store_unavailable'
  /** The store was used after `close()` (`StoreClosedError`). */
  | 'store_closed'
  /** Another process replaced an event while this ingest stored it; nothing of the batch is kept. */
  | 'ingest_conflict'
  /** The thread validating NDJSON lines for an ingest stopped. */
  | 'validation_thread_stopped'
  /** Another running process holds the embedded store's data directory (`DataDirLockedError`). */
  | 'data_dir_locked'
  /** The embedded store's disk is full: its writes fail (`DiskFullError`). */
  | 'disk_full'
  /** Ingest on a server that takes no writes (a hot standby) (`StoreReadOnlyError`). */
  | 'store_read_only'
  /** A read-only server's schema is not the one this version needs (`SchemaVersionError`). */
  | 'schema_version';

/** An error thrown by lookup-core, carrying a `code`. */
export class LookupCoreError extends Error {
  /** The class's name, so logs and `instanceof`-free checks can tell the errors apart. */
  override readonly name: string = 'LookupCoreError';
  /** What went wrong, stable across versions: branch on this rather than on the message. */
  readonly code: LookupCoreErrorCode;
  /** An error with `code` and `message`; `options.cause` keeps the driver's error. */
  constructor(code: LookupCoreErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.code = code;
  }
}

/**
 * The database cannot be reached right now (refused, reset, restarting, out of connections).
 * The handler answers 503; the store recovers by itself once the database is back.
 */
export class StoreUnavailableError extends LookupCoreError {
  /** Always `'StoreUnavailableError'`. */
  override readonly name = 'StoreUnavailableError';
  /** `options.cause` keeps the driver's error; `options.reason`, when given, ends the message. */
  constructor(options?: { cause?: unknown; reason?: string }) {
    super(
      'store_unavailable',
      options?.reason === undefined
        ? 'The lookup store is unavailable'
        : `The lookup store is unavailable: ${options.reason}`,
      options?.cause === undefined ? undefined : { cause: options.cause },
    );
  }
}

/** The store was used after `close()`. */
export class StoreClosedError extends LookupCoreError {
  /** Always `'StoreClosedError'`. */
  override readonly name = 'StoreClosedError';
  /** The error a closed store's calls reject with. */
  constructor() {
    super('store_closed', 'The lookup store is closed');
  }
}

/** The embedded store's data directory is held by another running process. */
export class DataDirLockedError extends LookupCoreError {
  /** Always `'DataDirLockedError'`. */
  override readonly name = 'DataDirLockedError';
  /** The process holding the directory. */
  readonly pid: number;
  /** `dir` is held by process `pid`. */
  constructor(dir: string, pid: number) {
    super(
      'data_dir_locked',
      `the data directory ${dir} is in use by process ${pid}: stop that process first, or use PostgreSQL (--database-url) to share one store between several processes`,
    );
    this.pid = pid;
  }
}

/**
 * The disk holding the embedded store's data directory is full. Batches committed before stay;
 * free some space and run again.
 */
export class DiskFullError extends LookupCoreError {
  /** Always `'DiskFullError'`. */
  override readonly name = 'DiskFullError';
  /** The data directory whose disk is full. */
  readonly dataDir: string;
  /** No space left on the disk of `dataDir`; `options.cause` keeps the underlying error. */
  constructor(dataDir: string, options?: { cause?: unknown }) {
    super(
      'disk_full',
      `no space left on the disk holding ${dataDir}: the embedded store cannot write there (batches committed before are kept; free some space, then run again)`,
      options,
    );
    this.dataDir = dataDir;
  }
}

const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs meaning "the server or the database is gone or not accepting work", as opposed to a
 * bad statement: shut down (57P01-57P03, 57P03 also while starting or in failover), dropped
 * (57P04, and 3D000 "does not exist" for every connection made after), out of connections or
 * resources (53300, 53400), not accepting connections (55000, while `ALLOW_CONNECTIONS false`).
 * 55000 is raised for other states too, but never by the store's own statements, which need no
 * prerequisite object state.
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '55000',
  '57P01',
  '57P02',
  '57P03',
  '57P04',
  '3D000',
  '53300',
  '53400',
]);

/** Whether an error from a driver means the database is unreachable rather than a query failed. */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (NETWORK_CODES.has(code) || UNAVAILABLE_SQLSTATES.has(code) || code.startsWith('08'))
      return true;
  }
  // pg reports a dropped or never-made connection by message only.
  return /Connection terminated|connection error|timeout exceeded when trying to connect|Client was closed/i.test(
    error.message,
  );
}

/** Ingest asked of a server that takes no writes: a hot standby, or a read-only server. */
export class StoreReadOnlyError extends LookupCoreError {
  /** Always `'StoreReadOnlyError'`. */
  override readonly name = 'StoreReadOnlyError';
  /** `reason` says why the server takes no writes. */
  constructor(reason: string) {
    super('store_read_only', `cannot ingest: ${reason}; ingest on the primary`);
  }
}

/**
 * A read-only server (a hot standby) whose schema is missing or at another version: the store does
 * not migrate there, it reads what the primary wrote.
 */
export class SchemaVersionError extends LookupCoreError {
  /** Always `'SchemaVersionError'`. */
  override readonly name = 'SchemaVersionError';
  /** `message` says what the schema is and what to do. */
  constructor(message: string) {
    super('schema_version', message);
  }
}
