/** Errors a caller of the store can branch on. */

/**
 * The database cannot be reached right now (refused, reset, restarting, out of connections).
 * The handler answers 503; the store recovers by itself once the database is back.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  constructor(options?: { cause?: unknown }) {
    super('The lookup store is unavailable', options);
  }
}

/** The store was used after `close()`. */
export class StoreClosedError extends Error {
  override readonly name = 'StoreClosedError';
  constructor() {
    super('The lookup store is closed');
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
 * bad statement: shut down (57P01-57P03), dropped (57P04, and 3D000 "does not exist" for every
 * connection made after), out of connections or resources (53300, 53400).
 */
const UNAVAILABLE_SQLSTATES = new Set([
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
