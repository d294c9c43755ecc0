/**
 * Retries, backoff and Retry-After under fake timers: the scripted fetch records the faked clock
 * at each attempt, so the waits between attempts are exact.
 */

import { sentBy } from '@service/test-support/sent-by';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ConnectionError,
  LookupClient,
  type LookupClientOptions,
  LookupError,
  RateLimitError,
  ServerError,
  TimeoutError,
  UnexpectedError,
} from '../src/index.js';
import { KEY, lookupBody } from './support/fixtures.js';
import { json, type Step, scriptedFetch } from './support/scripted-fetch.js';

const START = Date.UTC(2026, 0, 5, 12, 0, 0);

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'], now: START });
});
afterEach(() => {
  vi.useRealTimers();
  vi.restoreAllMocks();
});

function scripted(steps: Step[], options: Partial<LookupClientOptions> = {}) {
  const { fetch, calls } = scriptedFetch(steps);
  const client = new LookupClient({
    secretKey: KEY,
    baseUrl: 'https://lookup.example.com',
    keyTransport: 'bearer',
    fetch,
    ...options,
  });
  /** Runs a lookup to its end, letting the faked clock run; resolves to the result or the error. */
  const run = async (
    lookupOptions: { signal?: AbortSignal; timeout?: number | undefined } = {},
  ) => {
    const settled = client.lookup({ email: 'ada@acme.com' }, lookupOptions).then(
      (value) => value,
      (reason: unknown) => reason,
    );
    await vi.runAllTimersAsync();
    return settled;
  };
  /** Milliseconds from the start to each attempt. */
  const offsets = () => calls.map((call) => call.at - START);
  return { run, calls, offsets };
}

const unavailable = () => json(503, { error: 'Unavailable' });
const refused = () => new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });

describe('backoff', () => {
  it('waits 500 ms then 1 s (no jitter drawn), then gives up with the last answer', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { run, offsets } = scripted([unavailable(), unavailable(), unavailable()]);
    const error = await run();
    expect(error).toBeInstanceOf(ServerError);
    expect(offsets()).toEqual([0, 500, 1500]);
  });

  it('takes up to a quarter off each wait as jitter', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(1);
    const { run, offsets } = scripted([unavailable(), unavailable(), json(200, lookupBody)]);
    await expect(run()).resolves.toEqual(lookupBody);
    expect(offsets()).toEqual([0, 375, 1125]);
  });

  it('doubles up to 8 s', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const steps = Array.from({ length: 7 }, unavailable);
    const { run, offsets } = scripted(steps, { maxRetries: 6 });
    await run();
    const waits = offsets()
      .slice(1)
      .map((offset, index) => offset - (offsets()[index] ?? 0));
    expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 8000]);
  });

  it.each([408, 409, 429, 500, 502, 503, 504])('retries %i', async (status) => {
    const { run, calls } = scripted([json(status, { error: 'x' }), json(200, lookupBody)]);
    await expect(run()).resolves.toEqual(lookupBody);
    expect(calls).toHaveLength(2);
  });

  it.each([400, 401, 403, 404, 422])('does not retry %i', async (status) => {
    const { run, calls } = scripted([json(status, { error: 'x' }), json(200, lookupBody)]);
    expect(await run()).toBeInstanceOf(LookupError);
    expect(calls).toHaveLength(1);
  });

  it('retries connection errors, then throws ConnectionError with the cause', async () => {
    const { run, calls } = scripted([refused(), refused(), refused()]);
    const error = await run();
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toBe(
      'Could not reach the lookup service at https://lookup.example.com (3 attempts).',
    );
    expect((error as Error).cause).toMatchObject({ message: 'fetch failed' });
    expect(calls).toHaveLength(3);
  });

  it("retries a refused connection worded by the runtime but carrying the system's code (Bun)", async () => {
    const bunRefused = () =>
      Object.assign(
        new TypeError('ECONNREFUSED: Unable to connect. Is the computer able to access the url?'),
        {
          code: 'ECONNREFUSED',
        },
      );
    const { run, calls } = scripted([bunRefused(), bunRefused(), bunRefused()]);
    const error = await run();
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).message).toContain('(3 attempts)');
    expect(calls).toHaveLength(3);
  });

  it.each([
    ['a bug in the code', new TypeError('(0 , import_ky2.default) is not a function')],
    [
      "a permission the runtime refused (Deno's NotCapable)",
      Object.assign(new Error('Requires net access to "lookup.example.com:443"'), {
        name: 'NotCapable',
      }),
    ],
    [
      'a misuse Node reports with an ERR_ code',
      Object.assign(new TypeError('Invalid URL'), { code: 'ERR_INVALID_URL' }),
    ],
  ])('does not retry %s, and does not call it a connection error', async (_what, thrown) => {
    const { run, calls } = scripted([thrown, json(200, lookupBody)]);
    const error = await run();
    expect(error).toBeInstanceOf(UnexpectedError);
    expect(error).not.toBeInstanceOf(ConnectionError);
    expect((error as Error).cause).toBe(thrown);
    expect(calls).toHaveLength(1);
  });

  it('recovers when a retry succeeds', async () => {
    const { run, calls } = scripted([refused(), json(200, lookupBody)]);
    await expect(run()).resolves.toEqual(lookupBody);
    expect(calls).toHaveLength(2);
  });

  it('maxRetries: 0 makes one attempt', async () => {
    const { run, calls } = scripted([unavailable(), json(200, lookupBody)], { maxRetries: 0 });
    expect(await run()).toBeInstanceOf(ServerError);
    expect(calls).toHaveLength(1);
  });

  it('shares one retry budget across the transports tried under auto', async () => {
    const unauthorized = () => json(401, { error: 'Unauthorized' });
    const { run, calls } = scripted([unavailable(), unauthorized(), unavailable(), unavailable()], {
      keyTransport: 'auto',
    });
    expect(await run()).toBeInstanceOf(ServerError);
    // bearer: 503, retry 1 -> 401; header: 503, retry 2 -> 503, and the budget of 2 is spent.
    expect(calls.map((call) => sentBy(call.headers))).toEqual([
      'bearer',
      'bearer',
      'header',
      'header',
    ]);
  });
});

describe('Retry-After', () => {
  it('waits the seconds it gives, without jitter', async () => {
    const { run, offsets } = scripted([
      json(429, { error: 'Slow down' }, { 'retry-after': '3' }),
      json(200, lookupBody),
    ]);
    await expect(run()).resolves.toEqual(lookupBody);
    expect(offsets()).toEqual([0, 3000]);
  });

  it('waits until the HTTP date it gives', async () => {
    const at = new Date(START + 7000).toUTCString();
    const { run, offsets } = scripted([
      json(503, { error: 'Maintenance' }, { 'retry-after': at }),
      json(200, lookupBody),
    ]);
    await expect(run()).resolves.toEqual(lookupBody);
    expect(offsets()).toEqual([0, 7000]);
  });

  it('retries at once for a date in the past', async () => {
    const at = new Date(START - 60_000).toUTCString();
    const { run, offsets } = scripted([
      json(429, {}, { 'retry-after': at }),
      json(200, lookupBody),
    ]);
    await run();
    expect(offsets()).toEqual([0, 0]);
  });

  it('waits fractional seconds as written (1.5 s), without jitter', async () => {
    const { run, offsets } = scripted([
      json(503, { error: 'Unavailable' }, { 'retry-after': '1.5' }),
      json(200, lookupBody),
    ]);
    await expect(run()).resolves.toEqual(lookupBody);
    expect(offsets()).toEqual([0, 1500]);
  });

  it('gives the error back at once when fractional seconds ask for over 60 s', async () => {
    const { run, calls } = scripted([
      json(429, { error: 'Quota' }, { 'retry-after': '60.5' }),
      json(200, lookupBody),
    ]);
    expect(await run()).toBeInstanceOf(RateLimitError);
    expect(calls).toHaveLength(1);
  });

  it('without it, waits the seconds RateLimit-Reset gives', async () => {
    const { run, offsets } = scripted([
      json(429, { error: 'Slow down' }, { 'ratelimit-reset': '4' }),
      json(200, lookupBody),
    ]);
    await expect(run()).resolves.toEqual(lookupBody);
    expect(offsets()).toEqual([0, 4000]);
  });

  it('without it, waits until the epoch second X-RateLimit-Reset gives', async () => {
    const { run, offsets } = scripted([
      json(429, { error: 'Slow down' }, { 'x-ratelimit-reset': String((START + 5000) / 1000) }),
      json(200, lookupBody),
    ]);
    await expect(run()).resolves.toEqual(lookupBody);
    expect(offsets()).toEqual([0, 5000]);
  });

  it('is obeyed over RateLimit-Reset', async () => {
    const { run, offsets } = scripted([
      json(429, { error: 'Slow down' }, { 'retry-after': '2', 'ratelimit-reset': '9' }),
      json(200, lookupBody),
    ]);
    await run();
    expect(offsets()).toEqual([0, 2000]);
  });

  it('falls back to backoff when malformed', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { run, offsets } = scripted([
      json(429, {}, { 'retry-after': 'soon' }),
      json(200, lookupBody),
    ]);
    await run();
    expect(offsets()).toEqual([0, 500]);
  });

  it('gives the error back at once when the wait asked for is over 60 s', async () => {
    const { run, calls } = scripted([
      json(429, { error: 'Quota' }, { 'retry-after': '120' }),
      json(200, lookupBody),
    ]);
    const error = await run();
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).headers.get('retry-after')).toBe('120');
    expect(calls).toHaveLength(1);
  });
});

describe('network failures, as each runtime words them', () => {
  /** A TypeError as the runtime throws it; Safari's carries no stack. */
  const thrown = (message: string, stack = true) => {
    const error = new TypeError(message);
    if (!stack) Object.defineProperty(error, 'stack', { value: undefined });
    return error;
  };
  it.each([
    ['Node.js (undici)', 'fetch failed'],
    ['Node.js (undici), a connection cut mid-answer', 'terminated'],
    ['Chrome', 'Failed to fetch'],
    ['Chrome, naming the host', 'Failed to fetch (lookup.example.com)'],
    ['Chrome, a body cut short', 'network error'],
    ['Firefox', 'NetworkError when attempting to fetch resource.'],
    ['Safari 16', 'The Internet connection appears to be offline.'],
    [
      'Deno',
      'error sending request for url (https://lookup.example.com/api/service/lookup): client error (Connect): tcp connect error: Connection refused (os error 111)',
    ],
    ['Cloudflare Workers', 'Network connection lost'],
    ['Bun (WebKit)', ' A network error occurred.'],
    ['cross-fetch', 'Network request failed'],
  ])('%s: %j is retried, then a ConnectionError', async (_runtime, message) => {
    const { run, calls } = scripted([thrown(message), thrown(message), thrown(message)]);
    const error = await run();
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as Error).cause).toMatchObject({ message });
    expect(calls).toHaveLength(3);
  });

  it.each([
    ['Safari 17+', 'Load failed'],
    ['Safari 17+, naming the host', 'Load failed (lookup.example.com)'],
  ])('%s: %j without a stack is retried, then a ConnectionError', async (_runtime, message) => {
    const { run, calls } = scripted([thrown(message, false), thrown(message, false)], {
      maxRetries: 1,
    });
    expect(await run()).toBeInstanceOf(ConnectionError);
    expect(calls).toHaveLength(2);
  });

  it.each([
    ["Safari's wording with a stack (code threw it, not Safari)", thrown('Load failed')],
    ['a failed dynamic import', thrown('Failed to fetch dynamically imported module: x.js')],
    ['a wording of its own', thrown('fetch failed: bad port')],
  ])('%s is not the network: not retried, an UnexpectedError', async (_what, error) => {
    const { run, calls } = scripted([error, json(200, lookupBody)]);
    expect(await run()).toBeInstanceOf(UnexpectedError);
    expect(calls).toHaveLength(1);
  });
});

describe('timeouts', () => {
  it('times out each attempt after 30 s by default and retries it', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0);
    const { run, offsets } = scripted(['hang', 'hang', 'hang']);
    const error = await run();
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as Error).message).toBe('Lookup timed out after 30000 ms (3 attempts).');
    expect(offsets()).toEqual([0, 30_500, 61_500]);
  });

  it('uses the per-call timeout over the client one', async () => {
    const { run, offsets } = scripted(['hang', json(200, lookupBody)], { timeout: 10_000 });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    await expect(run({ timeout: 2000 })).resolves.toEqual(lookupBody);
    expect(offsets()).toEqual([0, 2500]);
  });
});

describe('a per-call timeout of undefined', () => {
  // An undefined per-call value must not override the client's.
  it('keeps the client timeout', async () => {
    const { run, offsets } = scripted(['hang', json(200, lookupBody)], { timeout: 10_000 });
    vi.spyOn(Math, 'random').mockReturnValue(0);
    await expect(run({ timeout: undefined })).resolves.toEqual(lookupBody);
    expect(offsets()).toEqual([0, 10_500]);
  });
});

describe('abort', () => {
  it("rejects with the caller's reason during a backoff wait, without another attempt", async () => {
    const { fetch, calls } = scriptedFetch([unavailable(), json(200, lookupBody)]);
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: 'https://lookup.example.com',
      fetch,
    });
    const controller = new AbortController();
    const settled = client
      .lookup({ domain: 'acme.com' }, { signal: controller.signal })
      .catch((reason: unknown) => reason);
    await vi.advanceTimersByTimeAsync(100);
    const reason = new Error('user navigated away');
    controller.abort(reason);
    expect(await settled).toBe(reason);
    await vi.runAllTimersAsync();
    expect(calls).toHaveLength(1);
  });

  it('a signal already aborted sends nothing', async () => {
    const { run, calls } = scripted([json(200, lookupBody)]);
    const error = await run({ signal: AbortSignal.abort() });
    expect(error).toMatchObject({ name: 'AbortError' });
    expect(error).not.toBeInstanceOf(LookupError);
    expect(calls).toHaveLength(0);
  });
});
