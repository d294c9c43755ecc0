/** JSON responses and the errors the handler answers with. */

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

/** A JSON response that no cache keeps (lookups are per key and per moment). */
export function jsonResponse(
  status: number,
  body: unknown,
  headers?: Record<string, string>,
): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      ...headers,
    },
  });
}

/** `{ "error": "<message for status>" }` with that status. */
export function errorResponse(status: ErrorStatus, headers?: Record<string, string>): Response {
  return jsonResponse(status, { error: ERROR_MESSAGES[status] }, headers);
}
