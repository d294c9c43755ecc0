/**
 * Issue 14 item 6: a lost or missing database answers 503 with `Retry-After`, not 500. Seen through
 * `service-lookup serve` on PostgreSQL (the database dropped under it), and on the embedded store
 * (a store that is closed, as during shutdown).
 */

import { createTestDatabase, DATABASE_URL, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupHandler, type LookupStore, openEmbeddedStore } from '../src/index.js';
import { baseEvents, KEY, KEYS } from './support/events.js';
import { lookup, serve } from './support/serve.js';

const database = await createTestDatabase();

describe('serve on PostgreSQL when its database is dropped', requires(database.missing), () => {
  afterAll(() => database.drop());

  it('answers 503 with Retry-After while the database is missing, and logs the failures folded per minute', async () => {
    const served = await serve(['--database-url', database.url, '--key', KEY]);
    const requestIds: string[] = [];
    try {
      // Serving, proved without a lookup: a cached answer would stand until the change feed
      // learns of its connection's end, after the first lookups below.
      expect((await fetch(`${served.origin}/readyz`)).status).toBe(200);
      const admin = new pg.Client({ connectionString: DATABASE_URL });
      await admin.connect();
      await admin.query(`DROP DATABASE ${new URL(database.url).pathname.slice(1)} WITH (FORCE)`);
      await admin.end();
      for (let i = 0; i < 3; i++) {
        const response = await lookup(served.origin, KEY, { domain: 'acme.com' });
        expect(response.status).toBe(503);
        expect(response.headers.get('retry-after')).toBe('1');
        expect(await response.text()).toBe('{"error":"Service unavailable"}');
        requestIds.push(response.headers.get('x-request-id') ?? '');
      }
    } finally {
      expect(await served.stop()).toBe(0);
    }
    // The first failure as a JSON line at once (request id, error class, message and SQLSTATE;
    // never a key); the minute's further ones folded into one line, written at shutdown.
    const logged = served
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line));
    expect(logged.map((entry) => [entry.requestId, entry.count])).toEqual([
      [requestIds[0], undefined],
      [requestIds[2], 2],
    ]);
    for (const entry of logged) {
      expect(entry).toMatchObject({
        level: 'error',
        event: 'lookup_failed',
        status: 503,
        errorClass: 'StoreUnavailableError',
        // terminated by the drop (57P01), or reconnecting to a database that is gone (3D000)
        sqlstate: expect.stringMatching(/^(57P01|3D000)$/),
      });
      expect(entry.message).toMatch(
        /^The lookup store is unavailable: .*(does not exist|terminat)/,
      );
    }
    expect(served.stderr()).not.toContain(KEY);
  }, 60_000);
});

describe('the embedded store once closed', () => {
  let store: LookupStore;
  beforeAll(async () => {
    store = await openEmbeddedStore(); // opening takes seconds: in a hook, with its longer timeout
    await store.ingest(baseEvents());
  });

  it('answers 503 with Retry-After', async () => {
    const handler = createLookupHandler({ store, keys: KEYS });
    await store.close();
    const response = await handler(
      new Request('http://lookup.test/api/service/lookup', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: '{"domain":"acme.com"}',
      }),
    );
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('1');
  });
});
