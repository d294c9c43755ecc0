/**
 * Every failure of the client is a `LookupError`. Branch with `instanceof`, or on `code` (and
 * `name`), which keep working where two copies of the package meet and `instanceof` cannot.
 *
 * Errors never hold the request (its headers or body carry the secret key), only the answer, and
 * every field of an error (message, body, headers, cause, and so `toJSON` and `util.inspect`) has
 * any secret key in it blanked out, so an error is safe to log whole.
 */
import type { core } from 'zod/mini';
import { type Redact, redactCause, redactHeaders, redactText, redactValue } from './redact.js';

/**
 * The stable `code` of every {@link LookupError}, one per class; branch on it where two copies of
 * the package meet and `instanceof` cannot tell.
 */
export type LookupErrorCode =
  | 'configuration_error'
  | 'invalid_input'
  | 'unauthorized'
  | 'not_found'
  | 'redirect'
  | 'rate_limited'
  | 'server_error'
  | 'api_error'
  | 'connection_error'
  | 'timeout'
  | 'unexpected_error'
  | 'response_validation_error'
  | 'response_too_large';

/** How the secret key travels: `Authorization: Bearer`, `x-service-secret-key`, or the body. */
export type KeyTransport = 'bearer' | 'header' | 'body';

/** An HTTP answer as the errors keep it: status, headers and the body parsed as far as it goes. */
export interface Answer {
  /** The HTTP status. */
  readonly status: number;
  /** The answer's headers. */
  readonly headers: Headers;
  /** JSON when the body parses as JSON, else the text; `undefined` when empty. */
  readonly body: unknown;
}

/** An answer as the client read it, with what blanks out the key it sent. */
interface Read extends Answer {
  readonly redact?: Redact | undefined;
}

const redactorOf = (answer: Answer | undefined): Redact =>
  (answer as Read | undefined)?.redact ?? redactText;

/** Text from the server as a message may show it: redacted, control characters made spaces, at most 200 characters. */
function excerpt(text: string, answer: Answer): string {
  return redactorOf(answer)(text)
    .replace(/\p{Cc}+/gu, ' ')
    .slice(0, 200);
}

/**
 * Every failure of the client is a `LookupError` (an abort rejects with the signal's reason
 * instead). It holds the answer, never the request, and any secret key in its fields is blanked,
 * so it is safe to log whole.
 *
 * @example
 * ```ts
 * try {
 *   await client.lookup({ domain: 'acme.com' });
 * } catch (error) {
 *   if (error instanceof LookupError) console.error(error.code, error.status, error.requestId);
 *   throw error;
 * }
 * ```
 */
export class LookupError extends Error {
  /** The class's name, e.g. `'NotFoundError'`. */
  override readonly name: string = 'LookupError';
  // Declared, not defined: assigned once in the constructor (a class field costs bundle bytes).
  /** What went wrong, as a stable string: see {@link LookupErrorCode}. */
  declare readonly code: LookupErrorCode;
  /** HTTP status of the answer; `undefined` when there was none. */
  declare readonly status: number | undefined;
  /** The parsed answer body (`{ error: string }` from the lookup itself). */
  declare readonly body: unknown;
  /** The answer's headers, redacted; `undefined` when there was no answer. */
  declare readonly headers: Headers | undefined;
  /** The `x-request-id` response header, when the server sent one. */
  declare readonly requestId: string | undefined;

  /**
   * @param message - what happened; redacted before it is kept.
   * @param code - the stable code of the error's class.
   * @param answer - the HTTP answer, when one came.
   * @param options - `cause`, redacted before it is kept.
   */
  constructor(message: string, code: LookupErrorCode, answer?: Answer, options?: ErrorOptions) {
    const redact = redactorOf(answer);
    super(
      redact(message),
      options && 'cause' in options ? { cause: redactCause(options.cause) } : undefined,
    );
    this.code = code;
    this.status = answer?.status;
    this.body = redactValue(answer?.body, redact);
    this.headers = answer && printable(redactHeaders(answer.headers, redact));
    this.requestId = answer?.headers.get('x-request-id') ?? undefined;
  }
}

/** The options given to `new LookupClient()` cannot work (thrown before any request). */
export class ConfigurationError extends LookupError {
  override readonly name: string = 'ConfigurationError';
  constructor(message: string) {
    super(message, 'configuration_error');
  }
}

/**
 * The server answered with an error status. Common statuses have their own subclass; any other
 * status is a `LookupApiError` with code `api_error`.
 */
export class LookupApiError extends LookupError {
  override readonly name: string = 'LookupApiError';
  declare readonly status: number;
  declare readonly headers: Headers;
  constructor(answer: Answer, detail = '') {
    super(`Lookup failed: ${answer.status} ${describe(answer)}${detail}`, 'api_error', answer);
  }
}

/** 400: the lookup needs an `email` or a `domain`. */
export class InvalidInputError extends LookupApiError {
  override readonly name: string = 'InvalidInputError';
  override readonly code: LookupErrorCode = 'invalid_input';
}

/** 401: the key was refused by every transport tried (named in `transportsTried`). */
export class UnauthorizedError extends LookupApiError {
  override readonly name: string = 'UnauthorizedError';
  override readonly code: LookupErrorCode = 'unauthorized';
  /** The key transports that were each answered 401, in the order tried. */
  declare readonly transportsTried: readonly KeyTransport[];
  constructor(answer: Answer, transportsTried: readonly KeyTransport[]) {
    super(answer, ` (secret key sent by: ${transportsTried.join(', ')})`);
    this.transportsTried = transportsTried;
  }
}

/**
 * 3xx: the lookup answered with a redirect, which the client never follows (following it would
 * send the secret key to wherever it points). `location` says where it pointed; in a browser,
 * where redirects are opaque, it is `undefined`.
 */
export class RedirectError extends LookupApiError {
  override readonly name: string = 'RedirectError';
  override readonly code: LookupErrorCode = 'redirect';
  /** The `Location` the answer pointed to, redacted; `undefined` when absent or opaque. */
  declare readonly location: string | undefined;
  constructor(answer: Answer) {
    const location = answer.headers.get('location') ?? undefined;
    super(answer, location === undefined ? '' : ` (to ${excerpt(location, answer)}: not followed)`);
    this.location = location && redactorOf(answer)(location);
  }
}

/** 404: the service has not observed this email or domain (the lookup is not enrichment). */
export class NotFoundError extends LookupApiError {
  override readonly name: string = 'NotFoundError';
  override readonly code: LookupErrorCode = 'not_found';
}

/** 429, after the retries allowed by `maxRetries`. `headers` holds `Retry-After`, if sent. */
export class RateLimitError extends LookupApiError {
  override readonly name: string = 'RateLimitError';
  override readonly code: LookupErrorCode = 'rate_limited';
}

/** 5xx, after the retries allowed by `maxRetries`. */
export class ServerError extends LookupApiError {
  override readonly name: string = 'ServerError';
  override readonly code: LookupErrorCode = 'server_error';
}

/** No answer: the connection failed (after retries). `cause` holds the runtime's error. */
export class ConnectionError extends LookupError {
  override readonly name: string = 'ConnectionError';
  constructor(message: string, options?: ErrorOptions) {
    super(message, 'connection_error', undefined, options);
  }
}

/** No answer within `timeout` ms, on every attempt allowed by `maxRetries`. */
export class TimeoutError extends ConnectionError {
  override readonly name: string = 'TimeoutError';
  override readonly code: LookupErrorCode = 'timeout';
}

/**
 * A failure that is neither the network's nor the server's, which no retry can fix: the runtime
 * refused the request (Deno without `--allow-net` throws `NotCapable`), or code threw (a bug in a
 * custom `fetch` or in the client). Never retried; `cause` holds the error thrown.
 */
export class UnexpectedError extends LookupError {
  override readonly name: string = 'UnexpectedError';
  constructor(cause: unknown) {
    super(`Lookup failed, not retried: ${cause}`, 'unexpected_error', undefined, { cause });
  }
}

/** The answer was a success but not the documented shape; no half-parsed data is returned. */
export class ResponseValidationError extends LookupError {
  override readonly name: string = 'ResponseValidationError';
  declare readonly status: number;
  declare readonly headers: Headers;
  /** Where the answer broke the contract, one zod issue per path, redacted. */
  declare readonly issues: readonly core.$ZodIssue[];
  constructor(answer: Answer, issues: readonly core.$ZodIssue[]) {
    super(
      `Lookup response does not match the schema: ${issues.slice(0, 3).map(describeIssue).join('; ')}`,
      'response_validation_error',
      answer,
    );
    this.issues = redactValue(issues, redactorOf(answer)) as readonly core.$ZodIssue[];
  }
}

/**
 * The answer's body was longer than `maxResponseBytes`: the client stopped reading it there and
 * closed the connection. `body` is `undefined`; `status` and `headers` are the answer's.
 */
export class ResponseTooLargeError extends LookupError {
  override readonly name: string = 'ResponseTooLargeError';
  declare readonly status: number;
  declare readonly headers: Headers;
  constructor(answer: Answer, maxBytes: number) {
    super(`Lookup response is over ${maxBytes} bytes: not read`, 'response_too_large', answer);
  }
}

/**
 * `headers` with each header also an own property, read-only: Node prints an uncaught error's
 * fields without asking `Headers` how to show itself (so `Headers {}`), and `JSON.stringify` sees
 * only own properties. A name `Headers` already answers to (`get`, `has`...) is left out.
 */
function printable(headers: Headers): Headers {
  for (const [name, value] of headers) {
    if (!(name in headers)) Object.defineProperty(headers, name, { value, enumerable: true });
  }
  return headers;
}

/** The error for an error answer that ends the call (401 is the client's: it knows the transports). */
export function errorFromAnswer(answer: Answer): LookupApiError {
  const { status } = answer;
  if (status < 400) return new RedirectError(answer);
  if (status === 400) return new InvalidInputError(answer);
  if (status === 404) return new NotFoundError(answer);
  if (status === 429) return new RateLimitError(answer);
  if (status >= 500) return new ServerError(answer);
  return new LookupApiError(answer);
}

/** The server's own words for the message, as an excerpt (gateways have been known to echo the
 * credential they refused). */
function describe(answer: Answer): string {
  const { body } = answer;
  const error = (body as { error?: unknown } | undefined)?.error;
  const text = typeof error === 'string' ? error : typeof body === 'string' && body;
  return (text && excerpt(text, answer)) || 'error';
}

/** `path: what was expected`, from the issue's own fields (zod/mini ships no English messages). */
export function describeIssue(issue: core.$ZodIssue): string {
  const path = issue.path.map(String).join('.') || '(root)';
  // The schemas' own checks carry what they expect as their message.
  const expected = issue.code === 'invalid_type' ? issue.expected : issue.message;
  return `${path}: expected ${expected}`;
}
