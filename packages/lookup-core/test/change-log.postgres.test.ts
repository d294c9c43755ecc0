/**
 * The change log's reader against the outbox hazard: a row given a lower position by a transaction
 * that commits after one with a higher position must still be read, once, when it commits.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { encodeChange } from '../src/model/changes.js';
import type { StoreEvent } from '../src/store/change-feed.js';
import { followChanges } from '../src/store/change-log.js';
import { postgresDatabase } from '../src/store/pg-database.js';

const database = await createTestDatabase();
afterAll(() => database.drop());

const notice = (domain: string) =>
  encodeChange({ workspace: 'default', domains: [domain], emails: [] });
const LOG = 'INSERT INTO service_lookup_changes (notice) VALUES ($1) RETURNING position::int';

describe('the change log reader', requires(database.missing), () => {
  it('reads a row committed after a row with a higher position, once', async () => {
    // Migrated (the log exists) by opening a store once.
    await (await openPostgresStore({ connectionString: database.url })).close();
    const db = postgresDatabase(new pg.Pool({ connectionString: database.url, max: 2 }), true);
    const feed = followChanges(db, { pollMs: 10 });
    const heard: StoreEvent[] = [];
    feed.start((event) => heard.push(event));
    const early = new pg.Client({ connectionString: database.url });
    const late = new pg.Client({ connectionString: database.url });
    await early.connect();
    await late.connect();
    const domains = () => heard.flatMap((e) => ('domains' in e ? e.domains : []));
    const until = async (done: () => boolean) => {
      for (let waited = 0; !done(); waited += 10) {
        if (waited > 10_000) throw new Error(`not heard; heard ${JSON.stringify(heard)}`);
        await sleep(10);
      }
    };
    try {
      await until(() => heard.some((e) => 'reset' in e));
      await early.query('BEGIN');
      const [first] = (await early.query(LOG, [notice('early.io')])).rows;
      await late.query('BEGIN');
      const [second] = (await late.query(LOG, [notice('late.io')])).rows;
      expect(first.position).toBeLessThan(second.position);
      await late.query('COMMIT');
      await until(() => domains().includes('late.io'));
      expect(feed.log().position).toBe(second.position);
      await early.query('COMMIT');
      await until(() => domains().includes('early.io'));
      // A row after both: by then both were read again (above the horizon) but emitted once.
      await late.query(LOG, [notice('after.io')]);
      await until(() => domains().includes('after.io'));
      expect(domains()).toEqual(['late.io', 'early.io', 'after.io']);
    } finally {
      await early.end();
      await late.end();
      await feed.close();
      await db.close();
    }
  }, 30_000);
});
