/**
 * A wide set asked twice under concurrent load (many lookups in flight, not one at a time): the
 * first pass keeps every answer it reads, and the second is answered from the cache, on both
 * stores, while other clients keep the database busy with lookups no cache can answer (on
 * PostgreSQL the change log's poll must not wait behind them: a poll older than the staleness
 * bound sends every lookup to the database).
 */
import { createServer, type Server } from 'node:http';
import { close, createTestDatabase, listen, requires } from '@service/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import {
  createLookupHandler,
  type LookupStore,
  openEmbeddedStore,
  openPostgresStore,
} from '../src/index.js';
import { toNodeListener } from '../src/node.js';
import { KEY, KEYS, session } from './support/events.js';

const database = await createTestDatabase();
const COMPANIES = 1_500;
/** More lookups in flight than the store's pool has connections (10 by default). */
const IN_FLIGHT = 64;

function events() {
  return Array.from({ length: COMPANIES }, (_, c) =>
    session(`s-${c}`, '2025-04-01T10:00:00Z', {
      company: { domain: `co${c}.example`, name: `Co ${c}`, industry: 'Software' },
      contact: { email: `p@co${c}.example`, name: 'A Person', title: 'Engineer' },
    }),
  );
}

/** Every company by domain and every contact by email with its activity, each asked twice in a row. */
const wideSet = Array.from({ length: COMPANIES }, (_, c) => [
  { domain: `co${c}.example` },
  { domain: `co${c}.example` },
  { email: `p@co${c}.example`, includeActivity: true },
  { email: `p@co${c}.example`, includeActivity: true },
]).flat();

async function ask(origin: string, body: object) {
  const response = await fetch(`${origin}/api/service/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.status;
}

/** Asks every lookup of the wide set, `IN_FLIGHT` at a time. */
async function askAll(origin: string) {
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < wideSet.length; i = next++)
      expect(await ask(origin, wideSet[i] as object)).toBe(200);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

/** Keeps `IN_FLIGHT` lookups of unknown contacts (each read from the database) going until `done`. */
async function keepBusy(origin: string, done: () => boolean) {
  let n = 0;
  const worker = async () => {
    while (!done()) expect(await ask(origin, { email: `nobody${n++}@unknown.example` })).toBe(404);
  };
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
}

const counts = (store: LookupStore) => {
  const cache = store.stats?.().cache;
  if (cache === undefined) throw new Error('the store keeps no cache counts');
  return cache;
};

const stores: Array<[string, string | undefined, () => Promise<LookupStore>]> = [
  ['embedded', undefined, () => openEmbeddedStore({ cache: {} })],
  [
    'PostgreSQL',
    database.missing,
    () => openPostgresStore({ connectionString: database.url, cache: {}, maxConnections: 2 }),
  ],
];

for (const [name, missing, open] of stores)
  describe(`the cache's second pass over a wide set (${name})`, requires(missing), () => {
    const servers: Server[] = [];
    let store: LookupStore | undefined;
    afterAll(async () => {
      await Promise.all(servers.map(close));
      await store?.close();
    });

    it('keeps every answer the first pass read and answers >= 99% of the second from it', {
      timeout: 120_000,
    }, async () => {
      store = await open();
      expect((await store.ingest(events())).rejected).toEqual([]);
      const server = createServer(toNodeListener(createLookupHandler({ store, keys: KEYS })));
      servers.push(server);
      const origin = await listen(server);
      await askAll(origin);
      const first = counts(store);
      // Two answers per company (by domain, by email with activity), none evicted.
      expect(first.entries).toBe(2 * COMPANIES);
      let done = false;
      const busy = keepBusy(origin, () => done);
      const second = await askAll(origin).finally(() => {
        done = true;
      });
      await busy;
      const after = counts(store);
      // The unknown contacts are misses too: count the wide set's hits only.
      const hits = after.hits - first.hits;
      expect(second).toBeUndefined();
      expect(hits / wideSet.length).toBeGreaterThanOrEqual(0.99);
    });
  });

afterAll(() => database.drop());
