/**
 * `service-lookup serve` on PostgreSQL while its database refuses connections (`ALLOW_CONNECTIONS
 * false`, its sessions terminated: SQLSTATE 55000 for every new one): `/readyz` turns 503, lookups
 * answer 503 with `Retry-After` (not 500), and both recover once the database accepts again.
 * A throwaway database on the test server, a real process on loopback.
 */

import { createTestDatabase, DATABASE_URL, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { baseEvents, KEY } from './support/events.js';
import { lookup, type Served, serve } from './support/serve.js';

const database = await createTestDatabase();
const name = new URL(database.url).pathname.slice(1);

/** Runs `sql` on the server's administrative database. */
async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Asks `/readyz` until it answers `status` with the change feed `feed`. The feed learns of its
 * connection's end by an event that may come after the store's first refused connection, and it
 * reconnects with a backoff of up to 5 s.
 */
async function readyzUntil(
  origin: string,
  status: number,
  feed: string,
): Promise<Record<string, unknown>> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(`${origin}/readyz`);
    const body = (await response.json()) as { checks?: { changeFeed?: string } };
    if (response.status === status && body.checks?.changeFeed === feed) return body;
    if (attempt === 300)
      throw new Error(`/readyz still ${response.status}: ${JSON.stringify(body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe(
  'serve on PostgreSQL: readiness and a database that refuses connections',
  requires(database.missing),
  () => {
    let served: Served;
    beforeAll(async () => {
      const store = await openPostgresStore({ connectionString: database.url });
      await store.ingest(baseEvents());
      await store.close();
      served = await serve(['--metrics'], { SERVICE_SECRET_KEYS: KEY, DATABASE_URL: database.url });
    }, 60_000);
    afterAll(async () => {
      await served?.stop();
      await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`).catch(() => {});
      await database.drop();
    });

    it('/readyz turns 503 while connections are refused, lookups answer 503 + Retry-After, then both recover', async () => {
      expect(await readyzUntil(served.origin, 200, 'listening')).toEqual({
        status: 'ready',
        checks: { store: 'ok', migrations: 'current', changeFeed: 'listening' },
      });
      const metrics = await (await fetch(`${served.origin}/metrics`)).text();
      expect(metrics).toContain('service_lookup_change_feed_listening 1');
      expect(metrics).toMatch(/service_lookup_pool_connections_in_use \d/);

      await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS false`);
      await admin(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}' AND pid <> pg_backend_pid()`,
      );
      const down = await readyzUntil(served.origin, 503, 'not listening');
      expect(down).toEqual({
        status: 'not ready',
        checks: { store: 'unavailable', migrations: 'unknown', changeFeed: 'not listening' },
      });
      const refused = await lookup(served.origin, KEY, { domain: 'acme.com' });
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('1');
      expect(await refused.text()).toBe('{"error":"Service unavailable"}');

      await admin(`ALTER DATABASE ${name} WITH ALLOW_CONNECTIONS true`);
      await readyzUntil(served.origin, 200, 'listening');
      const back = await lookup(served.origin, KEY, { domain: 'acme.com' });
      expect(back.status).toBe(200);
      expect(served.stderr()).toMatch(/"event":"lookup_failed".*"status":503.*"sqlstate":"55000"/);
    }, 60_000);
  },
);
