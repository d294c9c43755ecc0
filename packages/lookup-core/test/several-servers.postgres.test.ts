/**
 * Several servers over one PostgreSQL database, each with its answer cache: a commit made by an
 * `ingest` process reaches both `serve` processes (the change log, woken by LISTEN/NOTIFY), and a
 * server whose LISTEN connection drops still hears every commit through the log.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, DATABASE_URL, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { FEED_APPLICATION_NAME, type StoreEvent } from '../src/store/change-feed.js';
import { cliFromSource, PACKAGE } from './support/cli.js';
import { KEY, session } from './support/events.js';
import { lookup, type Served, serve } from './support/serve.js';

const database = await createTestDatabase();
/**
 * How long a server may take to hear a commit before the test gives up: a lost notification
 * would leave its kept answer stale for good. How soon it is heard is measured in bench/
 * (`pnpm bench lookup`: the largest staleness seen), never asserted here.
 */
const HEARD_WITHIN = { timeout: 10_000, interval: 50 };

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'service-lookup-servers-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await database.drop();
});

/** Runs `service-lookup ingest` on the test database as a process of its own; resolves on exit 0. */
async function ingestProcess(name: string, events: object[]) {
  const file = join(dir, `${name}.ndjson`);
  await writeFile(file, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  const child = spawn(
    process.execPath,
    [...cliFromSource(), 'ingest', file, '--database-url', database.url],
    { cwd: PACKAGE, env: { ...process.env, DATABASE_URL: '' }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  expect(code, output).toBe(0);
}

const body = async (origin: string, query: object) => {
  const response = await lookup(origin, KEY, query);
  return { status: response.status, json: response.status === 200 ? await response.json() : null };
};

describe(
  'two serve processes and an ingest process on one database',
  requires(database.missing),
  () => {
    const servers: Served[] = [];
    afterAll(async () => {
      await Promise.all(servers.map((s) => s.stop()));
    });

    it('both answer a company another process added, and a replaced event, one second after the commit', async () => {
      await ingestProcess('base', [
        session('base-1', '2025-05-01T10:00:00Z', { company: { domain: 'known.io' } }),
      ]);
      for (let i = 0; i < 2; i++)
        servers.push(await serve(['--database-url', database.url, '--key', KEY]));
      // Each server keeps what it answered: known.io, and 404s for a company not seen yet.
      for (const { origin } of servers) {
        for (let round = 0; round < 3; round++) {
          expect((await body(origin, { domain: 'known.io' })).status).toBe(200);
          expect((await body(origin, { domain: 'newco.io' })).status).toBe(404);
          expect((await body(origin, { email: 'ada@newco.io' })).status).toBe(404);
        }
      }

      await ingestProcess('newco', [
        session('n-1', '2025-05-02T10:00:00Z', {
          company: { domain: 'newco.io', name: 'NewCo' },
          contact: { email: 'ada@newco.io' },
          visitor_id: 'va',
        }),
        session('n-2', '2025-05-02T11:00:00Z', {
          company: { domain: 'newco.io', name: 'NewCo' },
          contact: { email: 'bo@newco.io' },
          visitor_id: 'vb',
        }),
        session('n-3', '2025-05-02T12:00:00Z', {
          company: { domain: 'newco.io', name: 'NewCo' },
          visitor_id: 'va',
        }),
      ]);
      for (const { origin } of servers) {
        const { status, json } = await vi.waitFor(async () => {
          const answer = await body(origin, { domain: 'newco.io' });
          expect(answer.status).toBe(200);
          return answer;
        }, HEARD_WITHIN);
        expect(status).toBe(200);
        expect(json.company).toMatchObject({
          domain: 'newco.io',
          name: 'NewCo',
          service_sessions: 3,
          service_visitors: 2,
          service_first_seen: '2025-05-02T10:00:00.000Z',
          service_last_seen: '2025-05-02T12:05:00.000Z',
        });
        expect(json.contacts.map((c: { email: string }) => c.email)).toEqual([
          'bo@newco.io',
          'ada@newco.io',
        ]);
        expect((await body(origin, { email: 'ada@newco.io' })).status).toBe(200);
      }

      // n-3 sent again, later and from a new contact: it replaces the first version.
      await ingestProcess('replaced', [
        session('n-3', '2025-05-03T12:00:00Z', {
          company: { domain: 'newco.io', name: 'NewCo' },
          contact: { email: 'cy@newco.io' },
          visitor_id: 'va',
        }),
      ]);
      for (const { origin } of servers) {
        const { json } = await vi.waitFor(async () => {
          const answer = await body(origin, { domain: 'newco.io' });
          expect(answer.json.company.service_last_seen).toBe('2025-05-03T12:05:00.000Z');
          return answer;
        }, HEARD_WITHIN);
        expect(json.company).toMatchObject({
          service_sessions: 3,
          service_last_seen: '2025-05-03T12:05:00.000Z',
        });
        expect(json.contacts.map((c: { email: string }) => c.email)).toEqual([
          'cy@newco.io',
          'bo@newco.io',
          'ada@newco.io',
        ]);
      }
    }, 120_000);
  },
);

describe('a server whose LISTEN connection drops', requires(database.missing), () => {
  it('still hears every commit through the change log, and its kept answers follow them', async () => {
    const admin = new pg.Client({ connectionString: DATABASE_URL });
    await admin.connect();
    const name = new URL(database.url).pathname.slice(1);
    const writer = await openPostgresStore({ connectionString: database.url, maxConnections: 1 });
    const store = await openPostgresStore({ connectionString: database.url, cache: {} });
    const events: StoreEvent[] = [];
    store.watch?.((event) => events.push(event));
    /** The listening connection, once it listens (its heartbeat has run). */
    const listener = () =>
      vi.waitFor(async () => {
        const { rows } = await admin.query<{ pid: number }>(
          "SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2 AND query = 'SELECT 1'",
          [name, FEED_APPLICATION_NAME],
        );
        expect(rows[0], 'the listening connection').toBeDefined();
        return rows[0]?.pid as number;
      }, HEARD_WITHIN);
    const sessions = async () =>
      (await store.lookup({ workspace: 'default', domain: 'drop.io' }))?.company.service_sessions;
    /** Waits until `count` events matching `seen` were heard (failing after 10 s without). */
    const until = (seen: (e: StoreEvent) => boolean, count = 1) =>
      vi.waitFor(() => {
        expect(
          events.filter(seen).length,
          `heard ${JSON.stringify(events)}`,
        ).toBeGreaterThanOrEqual(count);
      }, HEARD_WITHIN);
    const namesDrop = (e: StoreEvent) => 'domains' in e && e.domains.includes('drop.io');
    try {
      await writer.ingest([
        session('d-1', '2025-05-01T10:00:00Z', { company: { domain: 'drop.io' } }),
      ]);
      const first = await listener();
      expect(await sessions()).toBe(1);
      expect(await sessions()).toBe(1); // kept

      // No new connection may reach the database, so the listener stays away while a commit is made.
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
      events.length = 0;
      await admin.query('SELECT pg_terminate_backend($1)', [first]);
      await writer.ingest([
        session('d-2', '2025-05-01T11:00:00Z', { company: { domain: 'drop.io' } }),
      ]);
      // No one listens, but the log holds the change: the kept answer is dropped, and read again.
      await until(namesDrop);
      expect(await sessions()).toBe(2);
      expect(store.stats?.().changeFeed?.listening).toBe(false);

      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      const second = await listener();
      expect(second).not.toBe(first);
      events.length = 0;
      await writer.ingest([
        session('d-3', '2025-05-01T12:00:00Z', { company: { domain: 'drop.io' } }),
      ]);
      await until(namesDrop);
      expect(await sessions()).toBe(3);
    } finally {
      await admin.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`);
      await admin.end();
      await writer.close();
      await store.close();
    }
  }, 60_000);
});
