/** The `error` text of each status the lookup answers with: `{ "error": "<message>" }`. */
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

/** An HTTP status the lookup answers with an error body: a key of `ERROR_MESSAGES`. */
export type ErrorStatus = keyof typeof ERROR_MESSAGES;
