/**
 * A store with an answer cache trusts the cache only while its change feed says it is fresh. Here
 * the feed is the real change-log reader over a real database, held by the test so that it can
 * go deaf (the notices it would pass on are dropped) and say so (`fresh()` false), as a reader
 * whose polls stall does. A commit made meanwhile by another store must be in the next answer,
 * read from the database, not the kept answer from before.
 */
import { createTestDatabase, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { type LookupStore, openPostgresStore } from '../src/index.js';
import { type ChangeLogFeed, followChanges } from '../src/store/change-log.js';
import { postgresDatabase } from '../src/store/pg-database.js';
import { openSqlStore } from '../src/store/sql/store.js';
import { session } from './support/events.js';

const database = await createTestDatabase();

/** The change-log reader, deaf and stale while `stalled.now` is true. */
function stallable(real: ChangeLogFeed, stalled: { now: boolean }): ChangeLogFeed {
  return {
    ...real,
    start: (emit) => real.start((event) => (stalled.now ? undefined : emit(event))),
    fresh: () => !stalled.now && real.fresh(),
  };
}

describe('a cached store whose change feed goes stale', requires(database.missing), () => {
  const stores: LookupStore[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database.drop();
  });

  it('answers from the database, not from what it kept, once the feed cannot show it is fresh', async () => {
    const writer = await openPostgresStore({ connectionString: database.url });
    stores.push(writer);
    const db = postgresDatabase(new pg.Pool({ connectionString: database.url, max: 2 }), true);
    const stalled = { now: false };
    const cached = await openSqlStore(db, {
      cache: {},
      feed: () => stallable(followChanges(db, { pollMs: 20 }), stalled),
    });
    stores.push(cached);
    const query = { workspace: 'default', domain: 'acme.com' };
    await writer.ingest([session('s1', '2025-03-01T10:00:00Z', { intent: 'low' })]);
    // Kept: once the feed has polled, a second lookup is a hit with the answer from before.
    const before = await cached.lookup(query);
    await vi.waitFor(async () => {
      expect(await cached.lookup(query)).toEqual(before);
      expect(cached.stats?.().cache.hits).toBeGreaterThan(0);
    });

    stalled.now = true;
    await writer.ingest([session('s2', '2025-03-02T10:00:00Z', { intent: 'very_high' })]);
    const now = await writer.lookup(query);
    expect(now).not.toEqual(before);
    expect(await cached.lookup(query)).toEqual(now);
  }, 60_000);
});
