// A batch's array literals are cut from the encoded rows of the chunks its events came from:
// whatever runs of rows a batch takes, each column must hold exactly its events' elements, in order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEvent, type StoredEvent } from '../src/model/events.js';
import {
  type BatchRow,
  batchParameters,
  EVENT_COLUMNS,
  RowEncoder,
} from '../src/store/sql/batch-rows.js';
import { linkedin, session } from './support/events.js';

/** Text that an element must quote or escape, and characters of two UTF-16 code units. */
const awkward = fc.constantFrom(
  'plain',
  'say "hi"',
  'back\\slash',
  '',
  'München',
  '😀 emoji',
  ',{}',
);

const event = (n: number, name: string, page: string): StoredEvent => {
  const parsed = parseEvent(
    session(`e${n}`, '2025-03-01T10:00:00Z', {
      company: { domain: `c${n % 3}.com`, name },
      contact: n % 2 === 0 ? { email: `p${n}@c.com`, title: name } : null,
      pages_visited: [page, '/'],
    }),
  );
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.event;
};

/** Each column's elements for one event, encoded on its own. */
const elementsOf = (e: StoredEvent): string[] => {
  const encoder = new RowEncoder();
  encoder.add(e);
  return encoder.finish().columns;
};

describe('batch parameters from encoded rows', () => {
  it('hold exactly the chosen events, in order, across chunks and gaps', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(awkward, awkward, fc.boolean(), fc.boolean()), {
          minLength: 1,
          maxLength: 30,
        }),
        (specs) => {
          // Events split into chunks where `newChunk` says, and kept where `kept` says.
          const events = specs.map(([name, page], n) => event(n, name, page));
          const chosen: Array<{ row: BatchRow; event: StoredEvent }> = [];
          // Room for one row at first: the offsets must survive growing.
          let encoder = new RowEncoder(1);
          const encoders = [encoder];
          specs.forEach(([, , newChunk, kept], n) => {
            if (newChunk) {
              encoder = new RowEncoder(1);
              encoders.push(encoder);
            }
            const e = events[n] as StoredEvent;
            const row = encoder.row(e);
            if (kept) chosen.push({ row, event: e });
          });
          for (const e of encoders) e.finish();
          const expected = chosen.map((c) => elementsOf(c.event));
          const parameters = batchParameters(chosen.map((c) => c.row));
          expect(parameters).toEqual(
            parameters.map((_, column) => `{${expected.map((e) => e[column]).join(',')}}`),
          );
        },
      ),
    );
  });

  it('write each column from the field it is named after', () => {
    const parsed = [
      session('s1', '2025-03-01T10:00:00Z', {
        workspace: 'w',
        company: { domain: 'acme.com', name: 'Acme', industry: 'Software' },
        contact: { email: 'ann@acme.com', name: 'Ann', title: 'CTO' },
        active_time: 7,
        pages_visited: ['/a', '/b', '/c'],
        signals: ['pricing'],
        utm: { source: 'li' },
        intent: 'high',
        city: 'Berlin',
        state: 'Land',
        country: 'DE',
      }),
      linkedin('l1', '2025-03-02T10:00:00Z', {
        impressions: 11,
        clicks: 12,
        likes: 13,
        shares: 14,
        comments: 15,
      }),
    ].map((e) => parseEvent(e));
    for (const result of parsed) {
      if (!result.ok) throw new Error(result.reason);
      const e = result.event as unknown as Record<string, unknown>;
      const element = (value: unknown): string => {
        if (value === null) return 'NULL';
        if (typeof value === 'number') return String(value);
        const written = typeof value === 'string' ? value : JSON.stringify(value);
        return `"${written.replace(/["\\]/g, '\\$&')}"`;
      };
      const expected = EVENT_COLUMNS.split(', ').map((column) =>
        element(column === 'page_count' ? (e.pages as string[]).length : e[column]),
      );
      expect(elementsOf(result.event)).toEqual(expected);
    }
  });

  it('quote a value, escaping its quotes and backslashes, and keep a surrogate pair whole', () => {
    const encoder = new RowEncoder();
    const row = encoder.row(event(0, 'say "hi" \\ 😀', '/'));
    encoder.finish();
    const [, , , , , companyName] = batchParameters([row]);
    expect(companyName).toBe('{"say \\"hi\\" \\\\ 😀"}');
  });
});
