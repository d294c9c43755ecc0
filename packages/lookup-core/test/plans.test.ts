/**
 * Plans that stay right (issue 15, issue 16 "Linear in volume"): after an ingest, every query a
 * lookup or the aggregate reads (crm-sync's `sync --events`) run reads events through
 * `events_by_company` / `events_by_contact`, never `events_pkey` with a filter or a scan of the
 * table. The statements are recorded as the store runs them and explained with their parameters,
 * on both stores, after statistics were refreshed by the ingest itself.
 */
import { PGlite } from '@electric-sql/pglite';
import { createTestDatabase, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { pgliteDatabase } from '../src/store/embedded.js';
import { postgresDatabase } from '../src/store/pg-database.js';
import type { Database } from '../src/store/sql/db.js';
import { openSqlStore } from '../src/store/sql/store.js';
import { session } from './support/events.js';

const COMPANIES = 400;
const SESSIONS = 20_000;
const EVENT_INDEXES = new Set(['events_by_company', 'events_by_contact']);

interface Recorded {
  sql: string;
  params: unknown[];
}

/** A Database over `base` that records every statement run outside a transaction. */
function recording(base: Database): Database & { recorded: Recorded[] } {
  const recorded: Recorded[] = [];
  return {
    recorded,
    query: (sql, params = []) => {
      recorded.push({ sql, params });
      return base.query(sql, params);
    },
    prepared: (sql, params) => {
      recorded.push({ sql, params });
      return base.prepared(sql, params);
    },
    exec: (sql) => base.exec(sql),
    transaction: (fn) => base.transaction(fn),
    close: () => base.close(),
  };
}

function events() {
  return Array.from({ length: SESSIONS }, (_, i) =>
    session(`s${i}`, new Date(Date.UTC(2025, 0, 1) + i * 60_000).toISOString(), {
      company: { domain: `company${i % COMPANIES}.com` },
      contact: i % 2 === 0 ? { email: `p${(i >> 1) % 10}@company${i % COMPANIES}.com` } : null,
      visitor_id: `v${i % 997}`,
    }),
  );
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** How each plan node reading `events` reads it: the index name, or the node type. */
function eventReads(node: PlanNode, out: string[] = []): string[] {
  if (node['Relation Name'] === 'events' || node['Index Name']?.startsWith('events'))
    out.push(node['Index Name'] ?? node['Node Type']);
  for (const child of node.Plans ?? []) eventReads(child, out);
  return out;
}

function describePlans(open: () => Promise<Database & { recorded: Recorded[] }>) {
  let db: Database & { recorded: Recorded[] };
  afterAll(() => db?.close());

  it('lookups and aggregate reads use the per-company and per-contact indexes', async () => {
    db = await open();
    const store = await openSqlStore(db);
    const result = await store.ingest(events(), { batchSize: 5000 });
    expect(result.ingested).toBe(SESSIONS);
    // Statistics are fresh after the ingest (PGlite has no autovacuum to gather them).
    const [stats] = await db.query<{ rows: number }>(
      "SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = 'events'::regclass",
    );
    expect(Number(stats?.rows)).toBeGreaterThan(SESSIONS * 0.9);
    db.recorded.length = 0;
    for (const includeActivity of [false, true]) {
      expect(
        await store.lookup({ workspace: 'default', domain: 'company8.com', includeActivity }),
      ).not.toBeNull();
      expect(
        await store.lookup({ workspace: 'default', email: 'p4@company8.com', includeActivity }),
      ).not.toBeNull();
    }
    let companies = 0;
    for await (const _ of store.readAggregates()) companies++;
    expect(companies).toBe(COMPANIES);
    const distinct = new Map(db.recorded.map((r) => [r.sql, r]));
    expect(distinct.size).toBeGreaterThanOrEqual(6);
    // Prepared statements switch to a generic plan after a few runs: both kinds must be right.
    for (const mode of ['force_custom_plan', 'force_generic_plan']) {
      await db.exec(`SET plan_cache_mode = ${mode}`);
      for (const { sql, params } of distinct.values()) {
        const [row] = await db.query<{ 'QUERY PLAN': unknown }>(
          `EXPLAIN (FORMAT JSON) ${sql}`,
          params,
        );
        const plan = row?.['QUERY PLAN'];
        const [top] = (typeof plan === 'string' ? JSON.parse(plan) : plan) as Array<{
          Plan: PlanNode;
        }>;
        const reads = eventReads(top?.Plan as PlanNode);
        for (const read of reads)
          expect({ mode, sql, read }).toEqual({
            mode,
            sql,
            read: expect.toSatisfy((r: string) => EVENT_INDEXES.has(r)),
          });
      }
    }
  }, 300_000);
}

describe('embedded store', () => {
  describePlans(async () => {
    return recording(pgliteDatabase(await PGlite.create()));
  });
});

const database = await createTestDatabase();
describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describePlans(async () => {
    // One connection, so the SET plan_cache_mode and the EXPLAINs after it share a session.
    return recording(
      postgresDatabase(new pg.Pool({ connectionString: database.url, max: 1 }), true),
    );
  });
});
