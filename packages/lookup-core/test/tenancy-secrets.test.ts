/**
 * Tenancy and secrets. A key of one workspace never reads another's data, for every lookup form
 * (email, domain, each with and without activity) and every key transport, on both stores, even
 * where two workspaces observed the same company and the same person. Keys are kept hashed:
 * nothing in the database or reachable from the key resolver equals the plain key, and every
 * configured digest is compared on every lookup (no early exit, whichever key matches).
 */

import * as crypto from 'node:crypto';
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createTestDatabase, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  createKeyResolver,
  createLookupHandler,
  type LookupStore,
  openEmbeddedStore,
  openPostgresStore,
} from '../src/index.js';
import { session } from './support/events.js';

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>();
  return { ...original, timingSafeEqual: vi.fn(original.timingSafeEqual) };
});

const KEY_A = 'sk_live_tenant_alpha_7f3c9e1d5b2a48607c1e';
const KEY_A2 = 'sk_live_tenant_alpha_rotated_0a9b8c7d6e5f';
const KEY_B = 'sk_live_tenant_beta_4d2e6f8a0b1c3e5f7a9b';
const KEYS = [
  { key: KEY_A, workspace: 'alpha' },
  { key: KEY_A2, workspace: 'alpha' },
  { key: KEY_B, workspace: 'beta' },
];

/**
 * Both workspaces observed shared.io and its person sam@shared.io, each with its own names,
 * titles, pages and places (each marked with the workspace's name); each also has a company of
 * its own.
 */
function tenantEvents() {
  const events = [];
  for (const ws of ['alpha', 'beta']) {
    for (let i = 0; i < 3; i++) {
      const at = `2025-0${ws === 'alpha' ? 3 : 4}-0${i + 1}T10:00:00Z`;
      events.push(
        session(`${ws}-shared-${i}`, at, {
          workspace: ws,
          company: { domain: 'shared.io', name: `Shared ${ws}`, industry: `${ws} industry` },
          contact: { email: 'Sam@Shared.io', name: `Sam ${ws}`, title: `${ws} title` },
          visitor_id: `${ws}-visitor-${i}`,
          pages_visited: [`/${ws}/page-${i}`],
          signals: [`${ws} signal`],
          referrer: `https://${ws}.example/`,
          city: `${ws} city`,
          intent: ws === 'alpha' ? 'low' : 'very_high',
        }),
        session(`${ws}-own-${i}`, at, {
          workspace: ws,
          company: { domain: `${ws}-only.com`, name: `${ws} only` },
          contact: { email: `${ws}.person@${ws}-only.com`, name: `${ws} person` },
          pages_visited: [`/${ws}/own`],
          city: `${ws} city`,
        }),
      );
    }
  }
  return events;
}

type Transport = 'bearer' | 'header' | 'body';
const TRANSPORTS: Transport[] = ['bearer', 'header', 'body'];

function request(key: string, transport: Transport, query: Record<string, unknown>) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (transport === 'bearer') headers.authorization = `Bearer ${key}`;
  if (transport === 'header') headers['x-service-secret-key'] = key;
  const body = transport === 'body' ? { ...query, secretKey: key } : query;
  return new Request('http://lookup.test/api/service/lookup', {
    method: 'POST',
    headers,
    body: JSON.stringify(body),
  });
}

const TENANTS = [
  { key: KEY_A, workspace: 'alpha', other: 'beta' },
  { key: KEY_A2, workspace: 'alpha', other: 'beta' },
  { key: KEY_B, workspace: 'beta', other: 'alpha' },
];
const FORMS = (ws: string, other: string) => [
  { name: 'shared email', query: { email: 'SAM@shared.io' }, found: true },
  { name: 'shared domain', query: { domain: 'https://www.Shared.io/' }, found: true },
  { name: 'own email', query: { email: `${ws}.person@${ws}-only.com` }, found: true },
  { name: 'own domain', query: { domain: `${ws}-only.com` }, found: true },
  { name: "other's email", query: { email: `${other}.person@${other}-only.com` }, found: false },
  { name: "other's domain", query: { domain: `${other}-only.com` }, found: false },
];

/** Every row of the key x transport x form x activity matrix, checked against the store itself. */
function describeTenancy(label: string, open: () => Promise<{ store: LookupStore }>) {
  describe(`tenancy on ${label}`, () => {
    let store: LookupStore;
    beforeAll(async () => {
      ({ store } = await open());
    });

    it('a key reads its own workspace only, for every lookup form and key transport', async () => {
      const handler = createLookupHandler({ store, keys: KEYS });
      let rows = 0;
      for (const { key, workspace, other } of TENANTS)
        for (const transport of TRANSPORTS)
          for (const form of FORMS(workspace, other))
            for (const includeActivity of [false, true]) {
              const query = { ...form.query, includeActivity };
              const response = await handler(request(key, transport, query));
              const text = await response.text();
              const row = `${workspace} ${transport} ${form.name} activity=${includeActivity}`;
              // Nothing the other workspace observed appears: names, titles, pages, places, signals.
              expect(text.toLowerCase(), row).not.toContain(other);
              if (!form.found) {
                expect([response.status, text], row).toEqual([404, '{"error":"Not found"}']);
              } else {
                expect(response.status, row).toBe(200);
                const email = 'email' in form.query ? form.query.email.toLowerCase() : undefined;
                const domain = 'domain' in form.query ? 'shared.io' : undefined;
                const own =
                  domain && form.name.startsWith('own') ? `${workspace}-only.com` : domain;
                const expected = await store.lookup({
                  workspace,
                  includeActivity,
                  ...(email ? { email } : { domain: own ?? '' }),
                });
                expect(JSON.parse(text), row).toEqual(expected);
                expect(text, row).toContain(workspace);
              }
              rows++;
            }
      expect(rows).toBe(TENANTS.length * TRANSPORTS.length * 6 * 2);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// Stores: embedded (with a data dir, so its files can be read back) and PostgreSQL.

/** Every row of every user table, as text. */
async function everyRow(query: (sql: string) => Promise<Array<Record<string, unknown>>>) {
  const tables = await query(
    `SELECT format('%I.%I', table_schema, table_name) AS name FROM information_schema.tables
     WHERE table_schema NOT IN ('pg_catalog', 'information_schema') AND table_type = 'BASE TABLE'`,
  );
  let text = '';
  for (const { name } of tables) {
    for (const row of await query(`SELECT t::text AS row FROM ${String(name)} t`))
      text += `${String(row.row)}\n`;
  }
  return { tables: tables.length, text };
}

const SECRETS = [KEY_A, KEY_A2, KEY_B];
/** The key's secret part, lest a store keep it without its prefix. */
const secretPart = (key: string) => key.slice('sk_live_'.length);

function expectNoKeyIn(text: string) {
  for (const key of SECRETS) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(secretPart(key));
  }
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tenancy-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('embedded store', () => {
  let store: LookupStore;
  const dataDir = () => join(dir, 'embedded');
  beforeAll(async () => {
    store = await openEmbeddedStore({ dataDir: dataDir() });
    expect((await store.ingest(tenantEvents())).rejected).toEqual([]);
  });

  describeTenancy('the embedded store', async () => ({ store }));

  it('keeps no key in its database after lookups with every key and transport', async () => {
    const handler = createLookupHandler({ store, keys: KEYS });
    for (const key of SECRETS)
      for (const transport of TRANSPORTS)
        await handler(request(key, transport, { email: 'sam@shared.io', includeActivity: true }));
    await store.close();
    const pglite = await PGlite.create(dataDir());
    try {
      const dump = await everyRow(
        async (sql) => (await pglite.query<Record<string, unknown>>(sql)).rows,
      );
      expect(dump.tables).toBeGreaterThan(3);
      expect(dump.text).toContain('sam@shared.io'); // the dump reads real data
      expectNoKeyIn(dump.text);
    } finally {
      await pglite.close();
    }
  });
});

const database = await createTestDatabase();

describe('PostgreSQL store', requires(database.missing), () => {
  let store: LookupStore;
  beforeAll(async () => {
    store = await openPostgresStore({ connectionString: database.url });
    expect((await store.ingest(tenantEvents())).rejected).toEqual([]);
  });
  afterAll(async () => {
    await store?.close();
    await database.drop();
  });

  describeTenancy('PostgreSQL', async () => ({ store }));

  it('keeps no key in its database, nor in the statements the server saw', async () => {
    const handler = createLookupHandler({ store, keys: KEYS });
    for (const key of SECRETS)
      for (const transport of TRANSPORTS)
        await handler(request(key, transport, { domain: 'shared.io', includeActivity: true }));
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const dump = await everyRow(async (sql) => (await client.query(sql)).rows);
      expect(dump.tables).toBeGreaterThan(3);
      expect(dump.text).toContain('sam@shared.io');
      expectNoKeyIn(dump.text);
      const activity = await client.query<{ query: string }>(
        'SELECT coalesce(query, $$$$) AS query FROM pg_stat_activity',
      );
      expectNoKeyIn(activity.rows.map((r) => r.query).join('\n'));
    } finally {
      await client.end();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// The key resolver's memory, and constant-time comparison.

/**
 * Every string and byte array reachable from a value, its closures included (through the
 * inspector's [[Scopes]]), without entering the global scope.
 */
async function reachableFrom(value: unknown): Promise<{ strings: string[]; bytes: string[] }> {
  const session = new Session();
  session.connect();
  const holder = globalThis as { __reachableRoot?: unknown };
  holder.__reachableRoot = value;
  const strings: string[] = [];
  const bytes: string[] = [];
  const seen = new Set<string>();
  let visits = 0;
  type Remote = {
    type: string;
    subtype?: string;
    objectId?: string;
    value?: unknown;
    description?: string;
  };
  async function walk(remote: Remote | undefined, depth: number): Promise<void> {
    if (remote === undefined) return;
    if (remote.type === 'string') strings.push(String(remote.value));
    if (!remote.objectId || seen.has(remote.objectId) || depth > 6 || visits > 4000) return;
    if (
      remote.description === 'Global' ||
      (remote.subtype === 'internal#scope' && /^Global/.test(remote.description ?? ''))
    )
      return;
    seen.add(remote.objectId);
    visits++;
    const { result, internalProperties = [] } = (await session.post('Runtime.getProperties', {
      objectId: remote.objectId,
      ownProperties: true,
    })) as {
      result: Array<{ name: string; value?: Remote }>;
      internalProperties?: Array<{ name: string; value?: Remote }>;
    };
    if (remote.subtype === 'typedarray') {
      const octets = result.filter((p) => /^\d+$/.test(p.name)).map((p) => Number(p.value?.value));
      bytes.push(Buffer.from(octets).toString('hex'));
      return;
    }
    for (const property of [...result, ...internalProperties]) {
      if (property.value?.description === 'global' || property.name === '__proto__') continue;
      await walk(property.value, depth + 1);
    }
  }
  try {
    const { result } = (await session.post('Runtime.evaluate', {
      expression: 'globalThis.__reachableRoot',
    })) as { result: Remote };
    await walk(result, 0);
  } finally {
    delete holder.__reachableRoot;
    session.disconnect();
  }
  return { strings, bytes };
}

describe('the key resolver', () => {
  it('holds only digests: no reachable string or byte array equals a key, and the digests are there', async () => {
    const resolver = createKeyResolver(KEYS);
    expect(resolver.resolve(KEY_B)).toBe('beta');
    const { strings, bytes } = await reachableFrom(resolver);
    for (const key of SECRETS) {
      expect(strings.filter((s) => s.includes(secretPart(key)))).toEqual([]);
      expect(bytes).not.toContain(Buffer.from(key).toString('hex'));
      // The walk reaches the table: each key's digest is found, so a plain key would be too.
      expect(bytes).toContain(createHash('sha256').update(key).digest('hex'));
    }
  });

  it('compares the presented key with every configured digest, whichever matches (no early exit)', () => {
    const compare = vi.mocked(crypto.timingSafeEqual);
    const resolver = createKeyResolver(KEYS);
    for (const key of [KEY_A, KEY_B, 'sk_live_unknown_but_well_formed_000000000']) {
      compare.mockClear();
      resolver.resolve(key);
      expect(compare).toHaveBeenCalledTimes(KEYS.length);
    }
  });
});
