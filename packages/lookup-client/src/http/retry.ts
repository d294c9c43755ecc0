/**
 * When ky may try a lookup again, and after how long. The lookup is read-only, so retrying the
 * POST is safe; the statuses retried are the transient ones (timeout, conflict, rate limit,
 * server trouble). Without a wait from the server the wait doubles from 500 ms up to 8 s, less a
 * random jitter of up to a quarter so clients spread out.
 *
 * The server's wait is ky's reading of `Retry-After` (delay-seconds or an HTTP date) or, without
 * it, of the rate-limit headers (`RateLimit-Reset`, `X-RateLimit-Retry-After`, `X-RateLimit-Reset`),
 * at most 60 s. Two rules are the client's own: a `Retry-After` asking for more than 60 s gives
 * the error back at once (the caller decides whether to wait that long), and fractional seconds
 * (`1.5`), which ky takes for a malformed value, are waited as written.
 */
import { type HTTPError, isHTTPError, type RetryOptions } from 'ky';
import { isNetworkFailure } from './network-failure.js';

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A server asking for a longer wait than this gets its error back at once instead. */
const MAX_RETRY_AFTER_MS = 60_000;
const RETRIED_STATUSES = [408, 409, 429, 500, 502, 503, 504];
/** Delay-seconds with a fraction, which RFC 9110 does not allow but servers send. */
const FRACTIONAL_SECONDS = /^\d+\.\d+$/;

/**
 * ky's retry settings for `limit` more attempts. `isAbandoned` tells when the caller's signal
 * ended the call: that is never retried, whatever the error looks like.
 */
export function retryOptions(limit: number, isAbandoned: () => boolean): RetryOptions {
  // The fractional Retry-After `shouldRetry` just read, for `delay` to return as it is.
  let askedWait: number | undefined;
  return {
    limit,
    methods: ['post'],
    statusCodes: RETRIED_STATUSES,
    // Every retried status may say when to come back; the server sends Retry-After on 503.
    afterStatusCodes: RETRIED_STATUSES,
    maxRetryAfter: MAX_RETRY_AFTER_MS,
    // `delay` caps the backoff at 8 s itself; this cap only bounds a fractional Retry-After.
    backoffLimit: MAX_RETRY_AFTER_MS,
    delay: (attempt) => askedWait ?? Math.min(INITIAL_DELAY_MS * 2 ** (attempt - 1), MAX_DELAY_MS),
    jitter: (delay) => (askedWait === undefined ? delay * (1 - 0.25 * Math.random()) : delay),
    retryOnTimeout: true,
    shouldRetry: ({ error }) => {
      askedWait = undefined;
      if (isAbandoned()) return false;
      if (isHTTPError(error)) return httpVerdict(error, (wait) => (askedWait = wait));
      // A permission refused or a bug fails the same way every time: only the network's failures
      // are worth another attempt. `undefined` leaves the rest to ky, which retries timeouts only.
      return isNetworkFailure(error) || undefined;
    },
  };
}

/**
 * `false` when the server asks for a wait over the limit; `true` (ky's delay, which `wait` set)
 * for a fractional Retry-After; else `undefined`, which leaves the statuses and headers to ky
 * (`true` would ignore them).
 */
function httpVerdict(error: HTTPError, wait: (ms: number) => void): boolean | undefined {
  if (!RETRIED_STATUSES.includes(error.response.status)) return undefined;
  const value = error.response.headers.get('retry-after')?.trim() ?? '';
  const fractional = FRACTIONAL_SECONDS.test(value);
  // Delay-seconds or an HTTP date; anything else (NaN) leaves the wait to ky's backoff.
  const ms = /^\d+(\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value) - Date.now();
  if (ms > MAX_RETRY_AFTER_MS) return false;
  if (!fractional) return undefined;
  wait(ms);
  return true;
}
