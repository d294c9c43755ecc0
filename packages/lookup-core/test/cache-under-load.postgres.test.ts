/**
 * The answer cache on PostgreSQL keeps serving while the database is busy: two servers over one
 * database, each asked every lookup of a wide set many times over by concurrent clients, answer
 * nearly all of them from their caches; and a commit made meanwhile reaches both within the
 * staleness bound the store promises (a change feed that cannot show it is fresh sends lookups to
 * the database instead of a cache that may be stale).
 */
import { createServer, type Server } from 'node:http';
import { close, createTestDatabase, listen, requires } from '@service/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { createLookupHandler, type LookupStore, openPostgresStore } from '../src/index.js';
import { toNodeListener } from '../src/node.js';
import { KEY, KEYS, session } from './support/events.js';

const database = await createTestDatabase();
/** The change feed's promise: every commit older than this is in every answer. */
const STALENESS_BOUND_MS = 1_000;
const COMPANIES = 200;
const CONTACTS_PER_COMPANY = 3;
const IN_FLIGHT = 32;
const ROUNDS = 4;

/** Every company once with a session of each of its contacts. */
function events() {
  const all = [];
  for (let c = 0; c < COMPANIES; c++)
    for (let p = 0; p < CONTACTS_PER_COMPANY; p++)
      all.push(
        session(`s-${c}-${p}`, `2025-04-0${1 + p}T10:00:00Z`, {
          company: { domain: `co${c}.example`, name: `Co ${c}`, industry: 'Software' },
          contact: { email: `p${p}@co${c}.example`, name: 'A Person', title: 'Engineer' },
        }),
      );
  return all;
}

/** Every lookup that finds something: each company and each contact, with and without activity. */
const wideSet = Array.from({ length: COMPANIES }, (_, c) => [
  { domain: `co${c}.example` },
  { domain: `co${c}.example`, includeActivity: true },
  ...Array.from({ length: CONTACTS_PER_COMPANY }, (_, p) => ({ email: `p${p}@co${c}.example` })),
]).flat();

async function lookup(origin: string, body: object) {
  const response = await fetch(`${origin}/api/service/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { company: { service_last_seen: string } };
}

/** Asks every lookup of `lookups`, `IN_FLIGHT` at a time. */
async function askAll(origin: string, lookups: object[]) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < lookups.length; i = next++) await lookup(origin, lookups[i] as object);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

const cacheCounts = (store: LookupStore) => {
  const cache = store.stats?.().cache;
  if (cache === undefined) throw new Error('the store keeps no cache counts');
  return { hits: cache.hits, misses: cache.misses };
};

describe('the answer cache under load on PostgreSQL', requires(database.missing), () => {
  const stores: LookupStore[] = [];
  const servers: Server[] = [];
  afterAll(async () => {
    await Promise.all(servers.map(close));
    await Promise.all(stores.map((store) => store.close()));
    await database.drop();
  });

  it('two servers answer a wide set from their caches while busy, and a commit reaches both within the bound', {
    timeout: 120_000,
  }, async () => {
    const writer = await openPostgresStore({ connectionString: database.url });
    stores.push(writer);
    expect((await writer.ingest(events())).rejected).toEqual([]);
    const origins: string[] = [];
    const readers: LookupStore[] = [];
    for (let i = 0; i < 2; i++) {
      const store = await openPostgresStore({ connectionString: database.url, cache: {} });
      const server = createServer(toNodeListener(createLookupHandler({ store, keys: KEYS })));
      stores.push(store);
      readers.push(store);
      servers.push(server);
      origins.push(await listen(server));
    }
    // The first pass reads the database and fills each cache.
    for (const origin of origins) await askAll(origin, wideSet);
    const before = readers.map(cacheCounts);

    // Both servers busy at once; halfway through, another process commits a later session.
    const changed = { domain: 'co7.example' };
    let committedAt = Number.NaN;
    const seen: Array<{ sentAt: number; lastSeen: string }> = [];
    const load = origins.map(async (origin, i) => {
      for (let round = 0; round < ROUNDS; round++) {
        if (i === 0 && round === Math.floor(ROUNDS / 2)) {
          await writer.ingest([
            session('late', '2025-06-01T10:00:00Z', {
              company: { domain: changed.domain, name: 'Co 7', industry: 'Software' },
            }),
          ]);
          committedAt = performance.now();
        }
        await askAll(origin, wideSet);
      }
    });
    // Meanwhile each server is asked for the changed company over and over.
    const probes = origins.map(async (origin) => {
      while (
        Number.isNaN(committedAt) ||
        performance.now() - committedAt < 2 * STALENESS_BOUND_MS
      ) {
        const sentAt = performance.now();
        const answer = await lookup(origin, changed);
        seen.push({ sentAt, lastSeen: answer.company.service_last_seen });
      }
    });
    await Promise.all([...load, ...probes]);

    for (const [i, store] of readers.entries()) {
      const after = cacheCounts(store);
      const hits = after.hits - (before[i]?.hits ?? 0);
      const misses = after.misses - (before[i]?.misses ?? 0);
      // ROUNDS passes over the wide set: only the changed company's answers are read again.
      expect(hits + misses).toBeGreaterThanOrEqual(ROUNDS * wideSet.length);
      expect(hits / (hits + misses)).toBeGreaterThan(0.95);
    }
    const afterBound = seen.filter((s) => s.sentAt >= committedAt + STALENESS_BOUND_MS);
    expect(afterBound.length).toBeGreaterThan(0);
    for (const answer of afterBound) expect(answer.lastSeen).toBe('2025-06-01T10:05:00.000Z');
  });
});
