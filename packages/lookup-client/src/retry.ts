/**
 * When ky may try a lookup again, and after how long. The lookup is read-only, so retrying the
 * POST is safe; the statuses retried are the transient ones (timeout, conflict, rate limit,
 * server trouble). Without `Retry-After` the wait doubles from 500 ms up to 8 s, less a random
 * jitter of up to a quarter so clients spread out.
 */
import { type HTTPError, isHTTPError, type RetryOptions } from 'ky';
import { isNetworkFailure } from './network-failure.js';

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A server asking for a longer wait than this gets its error back at once instead. */
const MAX_RETRY_AFTER_MS = 60_000;
const RETRIED_STATUSES = [408, 409, 429, 500, 502, 503, 504];

/**
 * ky's retry settings for `limit` more attempts. `isAbandoned` tells when the caller's signal
 * ended the call: that is never retried, whatever the error looks like.
 */
export function retryOptions(limit: number, isAbandoned: () => boolean): RetryOptions {
  return {
    limit,
    methods: ['post'],
    statusCodes: RETRIED_STATUSES,
    // Every retried status may say when to come back; the server sends Retry-After on 503.
    afterStatusCodes: RETRIED_STATUSES,
    maxRetryAfter: MAX_RETRY_AFTER_MS,
    backoffLimit: MAX_DELAY_MS,
    delay: (attempt) => Math.min(INITIAL_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS),
    jitter: (delay) => delay * (1 - 0.25 * Math.random()),
    retryOnTimeout: true,
    shouldRetry: ({ error }) => {
      if (isAbandoned()) return false;
      // `undefined` leaves the status and Retry-After rules to ky (`true` would ignore them).
      if (isHTTPError(error)) return retryAfterAllows(error) ? undefined : false;
      // A permission refused or a bug fails the same way every time: only the network's failures
      // are worth another attempt. `undefined` leaves the rest to ky, which retries timeouts only.
      return isNetworkFailure(error) || undefined;
    },
  };
}

/** `false` when the server asks for a wait over the limit: the error comes back at once. */
function retryAfterAllows(error: HTTPError): boolean {
  // Delay-seconds or an HTTP date; anything else (NaN) leaves the wait to ky's backoff.
  const value = error.response.headers.get('retry-after')?.trim() ?? '';
  const wait = /^\d+$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  return !(wait > MAX_RETRY_AFTER_MS);
}
