/** The errors the handler answers with, and the headers of its JSON answers. */

/** The error message of each status the handler sends. */
export const ERROR_MESSAGES = {
  400: 'Invalid input',
  401: 'Unauthorized',
  404: 'Not found',
  405: 'Method not allowed',
  408: 'Request timeout',
  413: 'Payload too large',
  415: 'Unsupported media type',
  429: 'Too many requests',
  500: 'Internal server error',
  503: 'Service unavailable',
} as const;

export type ErrorStatus = keyof typeof ERROR_MESSAGES;

/** An error that maps to one HTTP status and its `{ "error": message }` body. */
export class HttpError extends Error {
  override readonly name = 'HttpError';
  readonly status: ErrorStatus;
  constructor(status: ErrorStatus) {
    super(ERROR_MESSAGES[status]);
    this.status = status;
  }
}

/** The headers of every JSON answer: no cache keeps one (lookups are per key and per moment). */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
};

const ERROR_BODIES = new Map(
  Object.entries(ERROR_MESSAGES).map(([status, error]) => [
    Number(status),
    JSON.stringify({ error }),
  ]),
);

/** `{"error":"<message for status>"}`, serialised once per status. */
export const errorBody = (status: ErrorStatus): string => ERROR_BODIES.get(status) ?? '';
