/**
 * The JSON-line log of `serve` (issue 14 item 6): one line per failure, 401s counted per address
 * and minute in bounded memory, never a key.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createJsonLineLog, describeFailure, StoreUnavailableError } from '../src/index.js';

const unauthorized = (address: string | null) =>
  ({ event: 'unauthorized', requestId: 'r', address }) as const;

describe('createJsonLineLog', () => {
  let lines: Array<Record<string, unknown>>;
  const write = (line: string) => {
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n'); // one line per entry
    lines.push(JSON.parse(line));
  };
  beforeEach(() => {
    lines = [];
    vi.useFakeTimers({ now: new Date('2026-01-01T00:00:00Z') });
  });
  afterEach(() => vi.useRealTimers());

  it('writes one line per minute per address that was refused, with its count', () => {
    const { log } = createJsonLineLog(write);
    for (let i = 0; i < 300; i++) log(unauthorized('10.0.0.1'));
    log(unauthorized('10.0.0.2'));
    log(unauthorized(null));
    vi.advanceTimersByTime(59_999);
    expect(lines).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(lines).toEqual([
      {
        time: '2026-01-01T00:01:00.000Z',
        level: 'warn',
        event: 'unauthorized',
        address: '10.0.0.1',
        count: 300,
        since: '2026-01-01T00:00:00.000Z',
        seconds: 60,
      },
      {
        time: '2026-01-01T00:01:00.000Z',
        level: 'warn',
        event: 'unauthorized',
        address: '10.0.0.2',
        count: 1,
        since: '2026-01-01T00:00:00.000Z',
        seconds: 60,
      },
      {
        time: '2026-01-01T00:01:00.000Z',
        level: 'warn',
        event: 'unauthorized',
        address: 'unknown',
        count: 1,
        since: '2026-01-01T00:00:00.000Z',
        seconds: 60,
      },
    ]);
    // The next minute starts with the next refusal, counted afresh; an idle log holds no timer.
    expect(vi.getTimerCount()).toBe(0);
    log(unauthorized('10.0.0.1'));
    vi.advanceTimersByTime(60_000);
    expect(lines.at(-1)).toMatchObject({ address: '10.0.0.1', count: 1 });
  });

  it('holds at most maxAddresses counters; further addresses are counted together', () => {
    const { log, flush } = createJsonLineLog(write, { maxAddresses: 3 });
    for (let i = 0; i < 1000; i++) log(unauthorized(`10.0.${i >> 8}.${i & 255}`));
    log(unauthorized('10.0.0.0'));
    flush();
    expect(lines.map((l) => [l.address, l.count])).toEqual([
      ['10.0.0.0', 2],
      ['10.0.0.1', 1],
      ['10.0.0.2', 1],
      ['other', 997],
    ]);
  });

  it('writes a failure at once, as one line with its class, message and SQLSTATE', () => {
    const { log } = createJsonLineLog(write);
    const cause = Object.assign(new Error('database "x" does not exist'), { code: '3D000' });
    log({
      event: 'lookup_failed',
      requestId: 'req-1',
      status: 503,
      ...describeFailure(new StoreUnavailableError({ cause })),
    });
    expect(lines).toEqual([
      {
        time: '2026-01-01T00:00:00.000Z',
        level: 'error',
        event: 'lookup_failed',
        requestId: 'req-1',
        status: 503,
        errorClass: 'StoreUnavailableError',
        message: 'The lookup store is unavailable: database "x" does not exist',
        sqlstate: '3D000',
        code: null,
      },
    ]);
  });
  it('folds a minute of failures of one kind into the first line and one counting the rest', () => {
    const { log, flush } = createJsonLineLog(write);
    const unavailable = (requestId: string, sqlstate: string) => ({
      event: 'lookup_failed' as const,
      requestId,
      status: 503 as const,
      ...describeFailure(
        new StoreUnavailableError({ cause: Object.assign(new Error('gone'), { code: sqlstate }) }),
      ),
    });
    for (let i = 0; i < 42_000; i++) log(unavailable(`req-${i}`, '57P01'));
    log(unavailable('other-kind', '3D000'));
    // Written at once: the first of each kind.
    expect(lines.map((l) => [l.requestId, l.count])).toEqual([
      ['req-0', undefined],
      ['other-kind', undefined],
    ]);
    vi.advanceTimersByTime(60_000);
    expect(lines.slice(2)).toEqual([
      {
        time: '2026-01-01T00:01:00.000Z',
        level: 'error',
        event: 'lookup_failed',
        requestId: 'req-41999',
        status: 503,
        errorClass: 'StoreUnavailableError',
        message: 'The lookup store is unavailable: gone',
        sqlstate: '57P01',
        code: null,
        count: 41_999,
        since: '2026-01-01T00:00:00.000Z',
        seconds: 60,
      },
    ]);
    // The next minute writes its first failure at once again.
    log(unavailable('req-next', '57P01'));
    expect(lines.at(-1)).toMatchObject({ requestId: 'req-next' });
    expect(lines.at(-1)?.count).toBeUndefined();
    flush();
    expect(lines).toHaveLength(4);
  });
});

describe('describeFailure', () => {
  it('keeps a system code apart from a SQLSTATE, and redacts anything shaped like a key', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), {
      code: 'ECONNREFUSED',
    });
    expect(describeFailure(new StoreUnavailableError({ cause }))).toEqual({
      errorClass: 'StoreUnavailableError',
      message: 'The lookup store is unavailable: connect ECONNREFUSED 127.0.0.1:1',
      sqlstate: null,
      code: 'ECONNREFUSED',
    });
    const leaky = new TypeError('resolver failed for "sk_live_secret_0123456789abcdefghij"');
    expect(describeFailure(leaky)).toMatchObject({
      errorClass: 'TypeError',
      message: 'resolver failed for "sk_live_[redacted]"',
    });
  });

  it('follows a cyclic cause chain a few links, not forever', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    a.cause = b;
    expect(describeFailure(a).message).toBe('a: b: a: b: a');
  });
});
