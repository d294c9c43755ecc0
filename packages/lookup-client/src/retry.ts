/**
 * When to try a lookup again, and after how long. The lookup is read-only, so every retry is safe;
 * the statuses retried are the transient ones (timeout, conflict, rate limit, server trouble).
 */

const INITIAL_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;
/** A server asking for a longer wait than this gets its error back at once instead. */
const MAX_RETRY_AFTER_MS = 60_000;

export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Milliseconds to wait before retry number `retry` (0 for the first), or `undefined` when the
 * server's `Retry-After` asks for more than `MAX_RETRY_AFTER_MS`. Without `Retry-After` the wait
 * doubles from 500 ms up to 8 s, less a random jitter of up to a quarter so clients spread out.
 */
export function retryDelay(retry: number, headers: Headers | undefined): number | undefined {
  const asked = headers && retryAfter(headers);
  if (asked !== undefined) return asked <= MAX_RETRY_AFTER_MS ? asked : undefined;
  return Math.min(INITIAL_DELAY_MS * 2 ** retry, MAX_DELAY_MS) * (1 - 0.25 * Math.random());
}

/** `Retry-After` in ms: delay-seconds or an HTTP date; `undefined` when absent or malformed. */
function retryAfter(headers: Headers): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
  });
}
