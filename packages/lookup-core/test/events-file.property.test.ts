/**
 * Hostile events files, property-based, on both stores: random files of valid events mixed with
 * malformed, oversized, mis-encoded and out-of-range lines, read by the NDJSON reader and ingested.
 * Every line ends accepted (stored, unchanged or replaced) or rejected, never both, never neither;
 * exactly the hostile lines are rejected; and the stored aggregates equal a recount, done here in
 * plain code, of the last accepted version of each event. Each file is ingested both as
 * `store.ingest` takes lines from its caller (validated on the ingesting thread) and as
 * `service-lookup ingest` hands them over (validated on the validation thread, in chunks).
 */

import { createTestDatabase, requires } from '@service/test-support';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LookupStore,
  type ObservedCompany,
  openEmbeddedStore,
  openPostgresStore,
} from '../src/index.js';
import { readNdjson } from '../src/ingest/ndjson.js';
import { validatedOffThread } from '../src/ingest/validate-off-thread.js';
import type { UnreadableLine } from '../src/model/unreadable-line.js';
import { linkedin, session } from './support/events.js';

const MAX_LINE_BYTES = 4096;
const utf8 = (s: string) => Buffer.from(s, 'utf8');

type Json = Record<string, unknown>;
/** One line of a file: its bytes, and for a valid event the event itself. */
interface Line {
  bytes: Buffer;
  event?: Json;
}

const id = fc.constantFrom('a', 'b', 'c', 'd', 'e');
const domain = fc.constantFrom('one.io', 'two.io', 'three.io');
const day = fc.integer({ min: 1, max: 28 });
const at = (d: number, hour = 10) =>
  `2025-01-${String(d).padStart(2, '0')}T${String(hour).padStart(2, '0')}:00:00.000Z`;

const validSession = fc
  .record({
    id,
    domain,
    day,
    email: fc.constantFrom(null, 'x@one.io', 'y@two.io'),
    visitor: fc.constantFrom('v1', 'v2', 'v3'),
    active: fc.nat(3600),
    pages: fc.array(fc.constantFrom('/', '/pricing', '/docs\u2028odd'), { maxLength: 4 }),
    referrer: fc.constantFrom('', 'https://x.example/\u2029', 'https://y.example/'),
  })
  .map((v) =>
    session(v.id, at(v.day), {
      company: { domain: v.domain },
      contact: v.email ? { email: v.email } : null,
      visitor_id: v.visitor,
      active_time: v.active,
      pages_visited: v.pages,
      referrer: v.referrer,
    }),
  );
const validLinkedin = fc
  .record({ id, domain, day, impressions: fc.nat(2 ** 31 - 1), clicks: fc.nat(100) })
  .map((v) =>
    linkedin(v.id, at(v.day, 12), {
      company: { domain: v.domain },
      impressions: v.impressions,
      clicks: v.clicks,
    }),
  );
const valid = fc.oneof(validSession, validLinkedin);

/** Lines that must be rejected, each built from a valid event. */
const hostile: fc.Arbitrary<Buffer> = fc.oneof(
  valid.map((e) => utf8(JSON.stringify(e).slice(0, -3))), // malformed JSON
  fc
    .tuple(
      valid,
      fc.constantFrom(
        '9999-12-31T23:59:59-01:00',
        '0000-01-01T00:00:00Z',
        '2025-02-31T10:00:00Z',
        '1969-12-31T23:59:59Z',
        '2999-01-01T00:00:00Z',
        '2025-01-01T10:00:60Z',
      ),
    )
    .map(([e, t]) => utf8(JSON.stringify({ ...e, start_time: t, end_time: t }))),
  fc
    .tuple(validLinkedin, fc.constantFrom(2 ** 31, 2 ** 53 - 1, -1, 1.5))
    .map(([e, n]) => utf8(JSON.stringify({ ...e, impressions: n }))),
  validSession.map((e) => utf8(JSON.stringify({ ...e, pages_visited: Array(101).fill('/') }))),
  valid.map((e) => {
    // A byte that is never UTF-8, inside a string.
    const text = utf8(JSON.stringify(e));
    const cut = text.indexOf('"id":"') + 6;
    return Buffer.concat([text.subarray(0, cut), Buffer.from([0xff]), text.subarray(cut)]);
  }),
  valid.map((e) => utf8(JSON.stringify({ ...e, padding: 'p'.repeat(MAX_LINE_BYTES) }))),
);

const line: fc.Arbitrary<Line> = fc.oneof(
  { weight: 3, arbitrary: valid.map((event) => ({ bytes: utf8(JSON.stringify(event)), event })) },
  { weight: 2, arbitrary: hostile.map((bytes) => ({ bytes })) },
);

/** The file: lines ended by \n or \r\n, cut into random chunks as a stream delivers them. */
const file = fc.record({
  lines: fc.array(fc.record({ line, crlf: fc.boolean() }), { minLength: 1, maxLength: 25 }),
  chunk: fc.integer({ min: 1, max: 9000 }),
});

interface Recount {
  sessions: number;
  activeSeconds: number;
  pageViews: number;
  visitors: number;
  impressions: number;
  clicks: number;
  firstSeen: string;
  lastSeen: string;
}

/** The aggregates of the last accepted version of each (type, id), counted in plain code. */
function recount(events: Json[]): Map<string, Recount> {
  const finals = new Map(events.map((e) => [`${e.type}:${e.id}`, e]));
  const out = new Map<string, Recount & { visitorSet: Set<string> }>();
  for (const e of finals.values()) {
    const d = (e.company as { domain: string }).domain;
    const r = out.get(d) ?? {
      sessions: 0,
      activeSeconds: 0,
      pageViews: 0,
      visitors: 0,
      impressions: 0,
      clicks: 0,
      firstSeen: '9999',
      lastSeen: '0000',
      visitorSet: new Set<string>(),
    };
    out.set(d, r);
    const end = (e.end_time ?? e.start_time) as string;
    if ((e.start_time as string) < r.firstSeen) r.firstSeen = e.start_time as string;
    if (end > r.lastSeen) r.lastSeen = end;
    if (e.type === 'session') {
      r.sessions++;
      r.activeSeconds += e.active_time as number;
      r.pageViews += (e.pages_visited as string[]).length;
      r.visitorSet.add(e.visitor_id as string);
      r.visitors = r.visitorSet.size;
    } else {
      r.impressions += e.impressions as number;
      r.clicks += e.clicks as number;
    }
  }
  return new Map([...out].map(([d, { visitorSet: _, ...r }]) => [d, r]));
}

async function* inChunks(bytes: Buffer, size: number) {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

type Lines = AsyncIterable<string | UnreadableLine>;
/** The two ways lines reach `store.ingest`. */
const ways: Record<string, (lines: Lines) => AsyncIterable<unknown>> = {
  'validated on the ingesting thread': (lines) => lines,
  // A chunk holds every line up to the next unreadable one, so it ends several batches of 4.
  'validated on the validation thread': (lines) =>
    validatedOffThread(lines, { now: Date.now() }, 4),
};

function describeEventsFiles(openStore: () => Promise<LookupStore>) {
  let store: LookupStore;
  let runs = 0;
  beforeAll(async () => {
    store = await openStore();
  });
  afterAll(() => store?.close());

  it.each(Object.entries(ways))(
    'every line is accepted or rejected, exactly the hostile ones rejected, aggregates = recount (%s)',
    async (_, through) => {
      await fc.assert(
        fc.asyncProperty(file, async ({ lines, chunk }) => {
          const workspace = `file-${++runs}`;
          const placed = lines.map(({ line, crlf }) => ({
            ...line,
            bytes: line.event ? utf8(JSON.stringify({ ...line.event, workspace })) : line.bytes,
            crlf,
          }));
          const bytes = Buffer.concat(
            placed.flatMap((l) => [l.bytes, utf8(l.crlf ? '\r\n' : '\n')]),
          );
          // Hostile lines carry no workspace: they would land in `default`, and must land nowhere.
          const result = await store.ingest(
            through(readNdjson(inChunks(bytes, chunk), { maxLineBytes: MAX_LINE_BYTES })),
            { batchSize: 4 },
          );
          const rejected = result.rejected.map((r) => r.line);
          const accepted = result.ingested + result.unchanged + result.replaced;
          expect(accepted + rejected.length).toBe(lines.length);
          const hostileLines = placed.flatMap((l, i) => (l.event ? [] : [i + 1]));
          expect(rejected).toEqual(hostileLines);
          const expected = recount(placed.flatMap((l) => (l.event ? [l.event] : [])));
          const stored = new Map<string, Recount>();
          for await (const { company } of store.readAggregates({ workspace })) {
            stored.set(company.domain, {
              sessions: company.sessions,
              activeSeconds: company.activeSeconds,
              pageViews: company.pageViews,
              visitors: company.visitors,
              impressions: company.linkedin.impressions,
              clicks: company.linkedin.clicks,
              firstSeen: company.firstSeen,
              lastSeen: company.lastSeen,
            });
          }
          expect(stored).toEqual(expected);
        }),
        { seed: 1414, numRuns: 40 },
      );
    },
    180_000,
  );

  it('the default workspace received nothing from the hostile lines', async () => {
    const defaults: ObservedCompany[] = [];
    for await (const o of store.readAggregates()) defaults.push(o);
    expect(defaults).toEqual([]);
  });
}

describe('embedded store', () => {
  describeEventsFiles(() => openEmbeddedStore());
});

const database = await createTestDatabase();
describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeEventsFiles(() => openPostgresStore({ connectionString: database.url }));
});
