// An unexpected error whose message is empty (what fetch gives for a refused connection: an
// AggregateError with no message) must still say something: seen as "unexpected error: " with
// nothing after it in the 100,000-record bench.
import { describe, expect, it } from 'vitest';
import { reportError } from '../../src/cli/json-errors.js';
import type { Io } from '../../src/cli/output.js';

function capture(error: unknown, json = false): { lines: string[]; exit: number } {
  const lines: string[] = [];
  const io: Io = {
    out: (line) => lines.push(line),
    err: (line) => lines.push(line),
    progress: () => {},
    stdin: async () => '',
  };
  return { lines, exit: reportError(error, io, json) };
}

describe('service-crm reports an unexpected error', () => {
  it('by the first message of its causes when its own is empty', () => {
    const refused = new AggregateError([new Error('connect ECONNREFUSED 127.0.0.1:1')], '');
    const { lines, exit } = capture(new TypeError('fetch failed', { cause: refused }));
    expect(lines).toEqual(['service-crm: unexpected error: fetch failed']);
    expect(exit).toBe(1);
    expect(capture(refused).lines).toEqual([
      'service-crm: unexpected error: AggregateError: connect ECONNREFUSED 127.0.0.1:1',
    ]);
  });

  it('by its name when nothing in it has a message', () => {
    expect(capture(new RangeError('')).lines).toEqual([
      'service-crm: unexpected error: RangeError',
    ]);
    const { lines } = capture(new Error('', { cause: new Error('') }), true);
    expect(JSON.parse(lines[0] ?? '')).toEqual({
      error: { code: 'internal', message: 'unexpected error: Error: Error' },
    });
  });
});
