// The change notice format shared by ingest (emits) and the lookup servers (consume).
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeChange, encodeChange, type StoreChange, splitChange } from '../src/model/changes.js';

/** PostgreSQL's NOTIFY payload limit: "must be shorter than 8000 bytes" (docs, sql-notify). */
const NOTIFY_LIMIT = 8000;
const bytes = (s: string) => Buffer.byteLength(s, 'utf8');

describe('change notices', () => {
  it('round-trip a small change exactly', () => {
    const change = { workspace: 'northwind', domains: ['acme.com'], emails: ['ann@acme.com'] };
    expect(decodeChange(encodeChange(change))).toEqual(change);
  });

  it('coarsen a change too large for one payload to its whole workspace', () => {
    const domains = Array.from({ length: 2000 }, (_, i) => `company-${i}.example`);
    const payload = encodeChange({ workspace: 'w', domains, emails: [] });
    expect(bytes(payload)).toBeLessThan(NOTIFY_LIMIT);
    expect(decodeChange(payload)).toEqual({ workspace: 'w', all: true });
  });

  it('read anything else as unreadable', () => {
    for (const payload of ['', 'x', '[]', 'null', '{"w":1}', '{"w":"a","d":[1],"e":[]}']) {
      expect(decodeChange(payload)).toBeUndefined();
    }
  });

  it('split a change into exact notices that each fit and together name every key', () => {
    const key = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 300 });
    fc.assert(
      fc.property(
        fc.string({ maxLength: 200 }),
        fc.array(key, { maxLength: 300 }),
        fc.array(key, { maxLength: 300 }),
        (workspace, domains, emails) => {
          const notices = splitChange({ workspace, domains, emails });
          const decoded = notices.map((n) => decodeChange(encodeChange(n)));
          for (const n of notices) expect(bytes(encodeChange(n))).toBeLessThan(NOTIFY_LIMIT);
          expect(decoded).toEqual(notices);
          const exact = notices.filter((n): n is StoreChange => !('all' in n));
          expect(exact).toHaveLength(notices.length);
          expect(exact.flatMap((n) => n.domains)).toEqual(domains);
          expect(exact.flatMap((n) => n.emails)).toEqual(emails);
        },
      ),
      { seed: 14, numRuns: 200 },
    );
  });
});
