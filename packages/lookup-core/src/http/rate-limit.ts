/**
 * A per-key request budget: each key may make `perSecond` lookups a second on average, and a burst
 * of up to `perSecond` at once, at least one (a token bucket). Keys are held as SHA-256 digests, never as given,
 * and at most `maxKeys` buckets are kept (the least recently used goes first), so a resolver that
 * accepts many keys cannot grow memory without bound.
 */
import { hash } from 'node:crypto';

export interface RateLimiter {
  /** Spends one request of `key`'s budget: 0 when allowed, else the whole seconds to wait. */
  take(key: string): number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export function createRateLimiter(
  perSecond: number,
  options: { maxKeys?: number; now?: () => number } = {},
): RateLimiter {
  if (!(Number.isFinite(perSecond) && perSecond > 0))
    throw new TypeError(
      `rateLimit must be a number of requests per second above 0, got ${perSecond}`,
    );
  const maxKeys = options.maxKeys ?? 10_000;
  const now = options.now ?? Date.now;
  const burst = Math.max(1, perSecond);
  const buckets = new Map<string, Bucket>();
  return {
    take(key) {
      // One-shot `hash`: no Hash object per request.
      const id = hash('sha256', key, 'base64');
      const at = now();
      const bucket = buckets.get(id) ?? { tokens: burst, at };
      bucket.tokens = Math.min(burst, bucket.tokens + ((at - bucket.at) / 1000) * perSecond);
      bucket.at = at;
      // Re-inserted, so the map's order is least recently used first.
      buckets.delete(id);
      buckets.set(id, bucket);
      if (buckets.size > maxKeys) buckets.delete(buckets.keys().next().value as string);
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1;
        return 0;
      }
      return Math.max(1, Math.ceil((1 - bucket.tokens) / perSecond));
    },
  };
}
