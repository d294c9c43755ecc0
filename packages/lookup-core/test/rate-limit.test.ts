/**
 * The optional per-key rate limit (issue 14 item 6): `rateLimit` on the handler, `--rate-limit N`
 * on serve. Over its budget a key gets 429 with `Retry-After`, which @service/lookup-client waits
 * out by itself; other keys keep their own budget. Memory stays bounded.
 */
import { LookupClient, RateLimitError } from '@service/lookup-client';
import { describe, expect, it } from 'vitest';
import { createRateLimiter } from '../src/http/rate-limit.js';
import { KEY, OTHER_KEY } from './support/events.js';
import { expectDocumented } from './support/openapi-answers.js';
import { lookup, serve } from './support/serve.js';
import { read } from './support/transport.js';

describe('createRateLimiter', () => {
  it('allows perSecond lookups at once, then one per 1/perSecond, and says how long to wait', () => {
    let now = 0;
    const limiter = createRateLimiter(2, { now: () => now });
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 1]);
    expect(limiter.take('b')).toBe(0); // a budget per key
    now = 499;
    expect(limiter.take('a')).toBe(1);
    now = 1_000; // 1 s after the burst: 2 more
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 1]);
  });

  it('rounds a wait up to whole seconds, never below 1', () => {
    const limiter = createRateLimiter(0.25, { now: () => 0 });
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 4]);
  });

  it('keeps at most maxKeys buckets: the least recently used is forgotten (and starts afresh)', () => {
    const limiter = createRateLimiter(1, { maxKeys: 2, now: () => 0 });
    expect([limiter.take('a'), limiter.take('b'), limiter.take('a')]).toEqual([0, 0, 1]);
    expect(limiter.take('c')).toBe(0); // 'b' is forgotten, 'a' was used more recently
    expect(limiter.take('a')).toBe(1);
    expect(limiter.take('b')).toBe(0);
  });

  it('refuses a budget that is not a positive number', () => {
    for (const bad of [0, -1, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => createRateLimiter(bad)).toThrow(/rateLimit must be a number/);
  });
});

describe('serve --rate-limit', () => {
  it('answers 429 with Retry-After past the budget, per key; the client waits it out', async () => {
    // One lookup every 2 s per key (a burst of 1): slow enough that a busy machine spreading the
    // burst below over seconds still sends most of it over the budget.
    const served = await serve([
      '--rate-limit',
      '0.5',
      '--key',
      KEY,
      '--key',
      `${OTHER_KEY}=other`,
    ]);
    try {
      const burst = await Promise.all(
        Array.from({ length: 12 }, () => lookup(served.origin, KEY, { domain: 'acme.com' })),
      );
      const limited = burst.filter((r) => r.status === 429);
      // 12 at once: even spread over 6 s, at most 1 + 3 fit the budget.
      expect(limited.length).toBeGreaterThanOrEqual(8);
      for (const response of limited) {
        expect(response.headers.get('retry-after')).toMatch(/^[1-9]\d*$/);
        const sent = await read(response);
        expect(sent.text).toBe('{"error":"Too many requests"}');
        expectDocumented('POST', sent); // the OpenAPI document lists 429
      }
      expect(burst.filter((r) => r.status !== 429).map((r) => r.status)).toEqual(
        burst.filter((r) => r.status !== 429).map(() => 404), // the in-memory store is empty
      );
      // Another key has a budget of its own.
      expect((await lookup(served.origin, OTHER_KEY, { domain: 'acme.com' })).status).toBe(404);

      // Without retries the client reports the 429 as a RateLimitError (a call that still found
      // budget spends it, so the next one is over).
      const client = new LookupClient({ secretKey: KEY, baseUrl: served.origin, maxRetries: 0 });
      let refused: unknown;
      for (let i = 0; i < 5 && !(refused instanceof RateLimitError); i++)
        refused = await client.lookup({ domain: 'acme.com' }).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(RateLimitError);
      expect((refused as RateLimitError).headers.get('retry-after')).toMatch(/^[12]$/);
      const patient = new LookupClient({ secretKey: KEY, baseUrl: served.origin, maxRetries: 3 });
      // Retried after Retry-After: the lookup reaches the store (404: nothing observed).
      await expect(patient.lookup({ domain: 'acme.com' })).rejects.toMatchObject({ status: 404 });
    } finally {
      expect(await served.stop()).toBe(0);
    }
  }, 60_000);

  it('is a usage error when not a positive number', async () => {
    await expect(serve(['--rate-limit', '0', '--key', KEY])).rejects.toThrow(
      /--rate-limit must be a number of lookups per second above 0/,
    );
  }, 30_000);
});
