/**
 * What a failed call was, as an error a caller can branch on: jsforce's `HttpApiError` (REST and
 * SOAP) or whatever else a call threw, classified by Salesforce's `errorCode` and the HTTP status:
 * the daily or the concurrent API limit, an expired session, an org or user whose API is off,
 * Chatter's hourly limit, a network failure, a refused request. No token is in the messages.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/errorcodes.htm
 */
import { type ApiUsage, SalesforceApiLimitError, SalesforceError } from '../errors.js';

interface ErrorEntry {
  message?: string;
  errorCode?: string;
  fields?: string[];
}

/** jsforce's `HttpApiError` (REST and SOAP), or anything else a call threw. */
interface JsforceError {
  name?: string;
  message?: string;
  errorCode?: string;
  data?: unknown;
  /** The answer's HTTP status, noted by the connection (`withStatus`). */
  statusCode?: number;
}

/** Rethrows what a REST call threw with its answer's HTTP status, which jsforce leaves out. */
export const withStatus =
  (status: () => number | undefined) =>
  (thrown: unknown): never => {
    const answered = status();
    if (typeof thrown === 'object' && thrown !== null && answered !== undefined)
      (thrown as JsforceError).statusCode = answered;
    throw thrown;
  };

/**
 * Chatter REST API resources answer 503 past the per-user, per-application hourly rate limit
 * (or while the server is down for maintenance): what is left waits for a later run.
 * https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/intro_rate_limits.htm
 */
const CHATTER = /\/chatter\//;

/**
 * The org's edition has no API access (API_DISABLED_FOR_ORG), or the user lacks "API Enabled"
 * (API_CURRENTLY_DISABLED, "API is disabled for this User").
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#exceptioncode
 */
const API_DISABLED: Readonly<Record<string, string>> = {
  API_DISABLED_FOR_ORG:
    "the org has no API access (its edition does not include the API, or it was turned off for the org): Salesforce or the org's account executive turns it on (Professional Edition needs the API add-on); the sync cannot run until then",
  API_CURRENTLY_DISABLED:
    'the API is disabled for this user: an admin gives the connecting user the "API Enabled" permission (its profile or a permission set), then run the command again',
};

/**
 * REQUEST_LIMIT_EXCEEDED for too many long-running requests at once, not the daily total
 * ("TotalRequests Limit exceeded."): it clears within minutes, so the call is sent again.
 * https://developer.salesforce.com/docs/platform/salesforce-app-limits-cheatsheet/guide/salesforce-app-limits-platform-api.html
 */
const CONCURRENT_LIMIT = /ConcurrentRequests/i;
/** jsforce wraps whatever a refresh function threw in this message. */
const REFRESH_FAILED = /^Unable to refresh session/;

/**
 * Codes of a connection that closed under a request. A server closes a kept-alive connection
 * it finds idle; a request sent on it at that moment fails so ("other side closed", a reset).
 * A client may send an idempotent request again then (RFC 9112 section 9.3.1). jsforce resends
 * a GET on ECONNRESET, but not on undici's `SocketError` without a cause.
 * https://www.rfc-editor.org/rfc/rfc9112#section-9.3.1
 */
const CLOSED_CONNECTION = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/** An error's causes, nearest first. */
function* causeChain(error: unknown): Generator<Error> {
  for (let cause = (error as Error).cause; cause instanceof Error; cause = cause.cause) yield cause;
}

/** The messages of an error's causes ("fetch failed" alone says nothing of why). */
function causesOf(error: unknown): string[] {
  const messages: string[] = [];
  for (const cause of causeChain(error)) {
    // A refused connection to several addresses is an AggregateError without a message.
    const text =
      cause.message || (cause instanceof AggregateError ? String(cause.errors[0]?.message) : '');
    const code = (cause as NodeJS.ErrnoException).code;
    if (text) messages.push(code && !text.includes(code) ? `${text} (${code})` : text);
  }
  return messages;
}

/** The network error came from a connection closed under the request. */
export function closedBeforeAnswer(error: SalesforceError): boolean {
  if (error.code !== 'network') return false;
  for (const cause of causeChain(error))
    if (CLOSED_CONNECTION.has(String((cause as NodeJS.ErrnoException).code))) return true;
  return false;
}

/** A value jsforce gives as one item or a list (XML-parsed SOAP answers). */
export const asArray = <T>(value: T | T[] | null | undefined): T[] =>
  value === null || value === undefined ? [] : Array.isArray(value) ? value : [value];

/** What the connection knows when a call fails: the API usage, and why its last refresh failed. */
export interface FailureContext {
  readonly usage: ApiUsage | undefined;
  readonly refreshError: SalesforceError | undefined;
}

/** The error `label` (the request, as `GET /path`) failed with, from what its call threw. */
export function classifyFailure(
  label: string,
  thrown: unknown,
  context: FailureContext,
): SalesforceError {
  if (thrown instanceof SalesforceError) return thrown;
  const e = (thrown ?? {}) as JsforceError;
  const message = e.message ?? String(thrown);
  if (REFRESH_FAILED.test(message)) {
    return (
      context.refreshError ??
      new SalesforceError(
        'session_expired',
        `${label}: the session expired and could not be refreshed (${message}). Log in again.`,
      )
    );
  }
  if (typeof e.errorCode !== 'string') {
    return new SalesforceError(
      'network',
      `${label} could not reach the org: ${[message, ...causesOf(thrown)].join(': ')}`,
      { request: label },
      { cause: thrown },
    );
  }
  const entries = asArray(e.data as ErrorEntry | ErrorEntry[] | undefined).filter(
    (d) => typeof d === 'object' && d !== null,
  );
  const first = entries[0];
  const code = (first?.errorCode ?? e.errorCode).replace(/^[\w-]+:/, '');
  const status = e.statusCode ?? (Number(/^ERROR_HTTP_(\d+)$/.exec(code)?.[1]) || undefined);
  const what = (first?.message ?? message).trim().split('\n').pop() ?? code;
  const details = {
    ...(status ? { status } : {}),
    errorCode: code,
    ...(first?.fields ? { fields: first.fields } : {}),
    request: label,
    body: entries.length > 0 ? entries : message,
  };
  if (code === 'REQUEST_LIMIT_EXCEEDED' && CONCURRENT_LIMIT.test(what)) {
    return new SalesforceApiLimitError(
      `${label}: Salesforce refused the call because the org has too many long-running requests at once (${what}), also after waiting and trying again. This is not the daily limit: it clears as those requests finish. Run the command again in a few minutes, or when the org's other integrations are quieter; the work done so far is kept.`,
      context.usage,
      details,
      'concurrent',
    );
  }
  if (code === 'REQUEST_LIMIT_EXCEEDED') {
    return new SalesforceApiLimitError(
      `${label}: the org's daily API request limit is reached (${what}). Salesforce counts requests over a rolling 24 hours: run again later; the work done so far is kept.`,
      context.usage,
      details,
    );
  }
  const disabled = API_DISABLED[code];
  if (disabled !== undefined) {
    return new SalesforceError('api_disabled', `${label}: ${code}: ${disabled}.`, details);
  }
  if (status === 503 && CHATTER.test(label)) {
    return new SalesforceError(
      'chatter_limit',
      `${label}: Chatter answered 503 (${what}): its hourly limit of requests per user and app, or maintenance. What is left waits for the next run.`,
      details,
    );
  }
  if (code === 'INVALID_SESSION_ID') {
    return new SalesforceError(
      'session_expired',
      `${label}: the session expired and could not be refreshed. Log in again.`,
      details,
    );
  }
  return new SalesforceError(
    label.includes('/services/Soap/') ? 'soap_fault' : 'request_failed',
    `${label} failed: ${code} ${what}`,
    details,
  );
}
