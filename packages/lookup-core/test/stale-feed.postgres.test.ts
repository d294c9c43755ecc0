/**
 * A store with an answer cache trusts the cache only while its change feed is fresh. The feed's
 * connections (LISTEN and the change log's poll) are frozen for real (their PostgreSQL backends
 * stopped with SIGSTOP): no poll answers and no notice arrives, yet nothing resets the cache. A commit made meanwhile by another
 * store must be in the next answer, read from the database, not the kept answer from before.
 */
import { createTestDatabase, DATABASE_URL, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type LookupStore, openPostgresStore } from '../src/index.js';
import { FEED_APPLICATION_NAME } from '../src/store/change-feed.js';
import { session } from './support/events.js';

const database = await createTestDatabase();

/** The PostgreSQL backends serving the feed of the test database (LISTEN, the log's poll), once both run. */
async function feedBackends(): Promise<number[]> {
  const admin = new pg.Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    for (;;) {
      const { rows } = await admin.query<{ pid: number }>(
        'SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2',
        [new URL(database.url).pathname.slice(1), FEED_APPLICATION_NAME],
      );
      if (rows.length >= 2) return rows.map((row) => row.pid);
      await new Promise((resolve) => setImmediate(resolve));
    }
  } finally {
    await admin.end();
  }
}

/** Why a backend cannot be stopped from here (another host, another user), or undefined. */
async function cannotSignalBackends(): Promise<string | undefined> {
  if (database.missing !== undefined) return database.missing;
  const host = new URL(database.url).hostname;
  if (!['127.0.0.1', 'localhost', '::1'].includes(host))
    return `PostgreSQL at ${host} is not on this machine: its backends cannot be stopped`;
  if (process.getuid?.() !== 0) return 'stopping a PostgreSQL backend (SIGSTOP) needs root';
  return undefined;
}

const missing = await cannotSignalBackends();

describe('a cached store whose change feed goes stale', requires(missing), () => {
  const stores: LookupStore[] = [];
  afterAll(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await database.drop();
  });

  it('answers from the database, not from what it kept, once the feed cannot show it is fresh', async () => {
    const cached = await openPostgresStore({ connectionString: database.url, cache: {} });
    const writer = await openPostgresStore({ connectionString: database.url });
    stores.push(cached, writer);
    const query = { workspace: 'default', domain: 'acme.com' };
    await writer.ingest([session('s1', '2025-03-01T10:00:00Z', { intent: 'low' })]);
    const backends = await feedBackends();
    // Kept: the second lookup is a hit, so the cache holds the answer from before.
    const before = await cached.lookup(query);
    expect(await cached.lookup(query)).toEqual(before);
    expect(cached.stats?.().cache.hits).toBe(1);

    for (const backend of backends) process.kill(backend, 'SIGSTOP');
    try {
      await writer.ingest([session('s2', '2025-03-02T10:00:00Z', { intent: 'very_high' })]);
      const now = await writer.lookup(query);
      expect(now).not.toEqual(before);
      // Stale once the last heartbeat answered more than a second ago (the feed's bound).
      for (;;) {
        const heard = cached.stats?.().changeFeed?.lastHeardSeconds;
        if (heard != null && heard > 1.5) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await cached.lookup(query)).toEqual(now);
    } finally {
      for (const backend of backends) process.kill(backend, 'SIGCONT');
    }
  }, 60_000);
});
