/**
 * One key transport's try at a lookup, through ky: ky makes the attempts (its per-attempt timeout,
 * its retries on the rules of retry.ts, the hooks), `bufferedFetch` reads each answer within its
 * bounds, and whatever ky throws is turned into the client's own error here, so no ky error
 * (which holds the request, and so the key) ever leaves, not even as a `cause`.
 */
import { KEY_BODY_FIELD, KEY_HEADER } from '@service/lookup-contract';
import ky, { isHTTPError, isNetworkError, isTimeoutError } from 'ky';
import {
  ConnectionError,
  errorFromAnswer,
  type KeyTransport,
  LookupError,
  TimeoutError,
  UnexpectedError,
} from '../errors.js';
import { hookFailures, kyHooks, type LookupHooks } from '../hooks.js';
import type { Redact } from '../redact.js';
import { bufferedFetch, type FetchFunction, type Received, received } from './fetch.js';
import { isNetworkFailure } from './network-failure.js';
import { retryOptions } from './retry.js';

/** What the client sends a lookup with, the same for every call. */
export interface Sender {
  readonly url: string;
  readonly secretKey: string;
  readonly fetch: FetchFunction;
  readonly maxResponseBytes: number;
  readonly redact: Redact;
  readonly hooks: LookupHooks;
}

/** One call's settings, and the retries it has left across the key transports it tries. */
export interface Call {
  readonly payload: object;
  readonly headers: Headers;
  readonly timeout: number;
  readonly signal: AbortSignal | undefined;
  retriesLeft: number;
}

/** The last answer through `keyTransport` (error statuses included) and the requests it took. */
export interface Attempted {
  readonly answer: Received;
  readonly attempts: number;
}

/**
 * Sends `call` with the key in `keyTransport`, retrying transient failures; resolves to the last
 * answer, and rejects with a `LookupError` when there was none (or with the caller's abort reason,
 * or with what a hook threw).
 */
export async function send(
  sender: Sender,
  call: Call,
  keyTransport: KeyTransport,
): Promise<Attempted> {
  const headers = new Headers(call.headers);
  if (keyTransport === 'bearer') headers.set('authorization', `Bearer ${sender.secretKey}`);
  if (keyTransport === 'header') headers.set(KEY_HEADER, sender.secretKey);
  const payload =
    keyTransport === 'body'
      ? { ...call.payload, [KEY_BODY_FIELD]: sender.secretKey }
      : call.payload;
  const body = JSON.stringify(payload);
  let attempts = 0;
  const toError = (error: Error) => noAnswer(error, sender.url, call.timeout, attempts);
  const hooks = kyHooks(sender.hooks, toError);
  try {
    const response = await ky(sender.url, {
      method: 'post',
      headers,
      body,
      // Defined values only: ky copies an `undefined` over its defaults.
      timeout: call.timeout,
      ...(call.signal && { signal: call.signal }),
      retry: retryOptions(call.retriesLeft, () => call.signal?.aborted === true),
      fetch: bufferedFetch({
        fetch: sender.fetch,
        body,
        onAttempt: () => attempts++,
        maxBytes: sender.maxResponseBytes,
        redact: sender.redact,
      }),
      hooks: {
        ...hooks,
        beforeRetry: [
          () => {
            call.retriesLeft--;
          },
          ...(hooks.beforeRetry ?? []),
        ],
      },
    });
    return { answer: received(response), attempts };
  } catch (error) {
    if (call.signal?.aborted) throw call.signal.reason;
    if (hookFailures.has(error as object)) throw error;
    if (isHTTPError(error)) return { answer: received(error.response), attempts };
    throw toError(error as Error);
  }
}

/**
 * The client's error for a failure of ky's: an error answer, a timeout, no connection, or
 * anything else thrown (which is not dressed up as the network's).
 */
function noAnswer(error: Error, url: string, timeout: number, attempts: number): LookupError {
  if (error instanceof LookupError) return error;
  if (isHTTPError(error)) return errorFromAnswer(received(error.response));
  if (isTimeoutError(error)) {
    return new TimeoutError(`Lookup timed out after ${timeout} ms (${plural(attempts)}).`);
  }
  if (!isNetworkFailure(error)) return new UnexpectedError(error);
  return new ConnectionError(
    `Could not reach the lookup service at ${new URL(url).origin} (${plural(attempts)}).`,
    { cause: isNetworkError(error) ? error.cause : error },
  );
}

function plural(attempts: number): string {
  return `${attempts} attempt${attempts === 1 ? '' : 's'}`;
}
