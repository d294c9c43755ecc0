/**
 * How long to wait before trying a lookup again. The lookup is read-only, so retrying the POST is
 * safe; the statuses retried are the transient ones (timeout, conflict, rate limit, server
 * trouble). Without `Retry-After` the wait doubles from 500 ms up to 8 s, less a random jitter of
 * up to a quarter so clients spread out.
 */

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A server asking for a longer wait than this gets its error back at once instead. */
const MAX_RETRY_AFTER_MS = 60_000;
const RETRIED_STATUSES = [408, 409, 429, 500, 502, 503, 504];

/**
 * Milliseconds before retry number `retryNumber` (1 for the first), or `undefined` when the
 * answer is not worth another attempt. `answer` is `undefined` after a timeout or a network
 * failure, which always back off.
 */
export function retryDelay(answer: Response | undefined, retryNumber: number): number | undefined {
  if (answer) {
    if (!RETRIED_STATUSES.includes(answer.status)) return undefined;
    // Every retried status may say when to come back; the server sends Retry-After on 503.
    const wait = retryAfter(answer.headers);
    if (wait > MAX_RETRY_AFTER_MS) return undefined;
    if (wait >= 0) return wait;
  }
  const delay = Math.min(INITIAL_DELAY_MS * 2 ** (retryNumber - 1), MAX_DELAY_MS);
  return delay * (1 - 0.25 * Math.random());
}

/**
 * Retry-After in milliseconds from now: delay-seconds or an HTTP date (a past date is 0); NaN
 * when absent or neither, which leaves the wait to the backoff.
 */
function retryAfter(headers: Headers): number {
  const value = headers.get('retry-after')?.trim() ?? '';
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  return Math.max(0, Date.parse(value) - Date.now());
}
