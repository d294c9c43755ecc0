/**
 * Issue 14 item 4: the largest answer is bounded. One company with 10 contacts, each with more
 * than 10 sessions and 10 LinkedIn entries, every text at its ingest limit: the lookup answer stays
 * within the bound the README states (1,400,000 bytes), on both stores; one byte more in any
 * bounded field is rejected at ingest.
 */

import { createTestDatabase, requires } from '@service/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createLookupHandler,
  type LookupStore,
  openEmbeddedStore,
  openPostgresStore,
} from '../src/index.js';
import { KEY, linkedin, session } from './support/events.js';

/** The README's bound on a lookup answer, in bytes. */
const LARGEST_ANSWER = 1_400_000;

const x = (bytes: number) => 'x'.repeat(bytes);
const company = { domain: 'worst.io', name: x(200), industry: x(200) };
const contact = (c: number) => ({
  email: `${x(300)}${String(c).padStart(2, '0')}@worst.io`.slice(-320),
  name: x(200),
  title: x(200),
});
/** A session with every bounded list and text at its limit (limits from the README). */
const fullSession = (id: string, c: number, minute: number) =>
  session(id, `2025-03-01T10:${String(minute).padStart(2, '0')}:00Z`, {
    workspace: 'worst',
    company,
    contact: contact(c),
    active_time: 2 ** 31 - 1,
    pages_visited: Array.from({ length: 100 }, (_, p) => `${String(p).padStart(2, '0')}${x(79)}`),
    signals: Array.from({ length: 20 }, (_, s) => `${String(s).padStart(2, '0')}${x(98)}`),
    referrer: x(2048),
    intent: 'very_high',
    city: x(100),
    state: x(100),
    country: x(100),
  });

function worstCase() {
  const events = [];
  for (let c = 0; c < 12; c++) {
    for (let s = 0; s < 12; s++) events.push(fullSession(`s-${c}-${s}`, c, s));
    for (let l = 0; l < 12; l++) {
      events.push(
        linkedin(`l-${c}-${l}`, `2025-03-01T11:${String(l).padStart(2, '0')}:00Z`, {
          workspace: 'worst',
          company,
          contact: contact(c),
          impressions: 2 ** 31 - 1,
          clicks: 2 ** 31 - 1,
          likes: 2 ** 31 - 1,
          shares: 2 ** 31 - 1,
          comments: 2 ** 31 - 1,
        }),
      );
    }
  }
  return events;
}

function describeLargestAnswer(openStore: () => Promise<LookupStore>) {
  let store: LookupStore;
  afterAll(() => store?.close());

  it('the fullest company answers within the stated bound', async () => {
    store = await openStore();
    const result = await store.ingest(worstCase());
    expect(result.rejected).toEqual([]);
    const handler = createLookupHandler({ store, keys: [{ key: KEY, workspace: 'worst' }] });
    const response = await handler(
      new Request('http://test/api/service/lookup', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ domain: 'worst.io', includeActivity: true }),
      }),
    );
    expect(response.status).toBe(200);
    const bytes = (await response.arrayBuffer()).byteLength;
    console.log(`largest answer: ${bytes} bytes`);
    expect(bytes).toBeLessThanOrEqual(LARGEST_ANSWER);
    // The data did reach the limits: the answer is within 10% of the bound.
    expect(bytes).toBeGreaterThan(LARGEST_ANSWER * 0.9);
  }, 120_000);

  it('one byte or entry over a limit is rejected at ingest', async () => {
    const over: Array<[string, Record<string, unknown>]> = [
      ['pages_visited', { pages_visited: Array(101).fill('/') }],
      ['pages_visited.0', { pages_visited: [x(1025)] }],
      ['pages_visited', { pages_visited: Array(9).fill(x(1000)) }], // 9,000 bytes in all
      ['signals', { signals: Array.from({ length: 21 }, (_, i) => `s${i}`) }],
      ['signals.0', { signals: [x(101)] }],
      ['referrer', { referrer: x(2049) }],
      ['referrer', { referrer: '"'.repeat(1025) }], // 2,050 bytes once escaped
      ['city', { city: x(101) }],
      ['company.name', { company: { domain: 'worst.io', name: x(201) } }],
      ['contact.title', { contact: { email: 'a@worst.io', title: x(201) } }],
      ['contact.email', { contact: { email: `${x(312)}@worst.io` } }],
      ['active_time', { active_time: 2 ** 31 }],
    ];
    const result = await store.ingest(
      over.map(([, fields], i) =>
        session(`over-${i}`, '2025-03-01T10:00:00Z', { workspace: 'worst', ...fields }),
      ),
    );
    expect(result.rejected.map((r) => r.reason.split(':')[0])).toEqual(over.map(([path]) => path));
  });
}

describe('embedded store', () => {
  describeLargestAnswer(() => openEmbeddedStore());
});

const database = await createTestDatabase();
describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeLargestAnswer(() => openPostgresStore({ connectionString: database.url }));
});
