/**
 * Issue 14 item 7 through lookups on both stores, and through `service-lookup serve`: a URL-shaped
 * domain names the host a browser would read (`acme.com#@globex.com` is acme.com, before it was
 * globex.com), a trailing dot is dropped for emails as for domains (`x@globex.com.` answered 404
 * while `GLOBEX.COM.` answered 200), and a port or userinfo is refused (`x@globex.com:80` was
 * accepted) with the spec's 400 body. Ingest reads events the same way.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, requires } from '@service/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLookupHandler,
  type LookupStore,
  openEmbeddedStore,
  openPostgresStore,
} from '../src/index.js';
import { KEY, KEYS, session } from './support/events.js';
import { lookup, serve } from './support/serve.js';

const events = () => [
  session('acme-1', '2025-03-01T10:00:00Z', { company: { domain: 'acme.com', name: 'Acme' } }),
  session('globex-1', '2025-03-01T11:00:00Z', {
    company: { domain: 'globex.com', name: 'Globex' },
    contact: { email: 'x@globex.com.' }, // stored as x@globex.com
  }),
  // Both read as a browser would, so they add to acme.com and to globex.com.
  session('acme-2', '2025-03-02T10:00:00Z', { company: { domain: 'acme.com#@globex.com' } }),
  session('globex-2', '2025-03-02T11:00:00Z', {
    company: { domain: 'http://globex.com\\@acme.com' },
  }),
  // Refused at ingest: a port, userinfo, an email domain with a port.
  session('bad-1', '2025-03-03T10:00:00Z', { company: { domain: 'acme.com:8080' } }),
  session('bad-2', '2025-03-03T10:00:00Z', { company: { domain: 'https://globex.com@acme.com/' } }),
  session('bad-3', '2025-03-03T10:00:00Z', {
    company: { domain: 'globex.com' },
    contact: { email: 'y@globex.com:80' },
  }),
];

type Row = [string, Record<string, unknown>, number, string?];
const ROWS: Row[] = [
  ['a fragment holding @', { domain: 'acme.com#@globex.com' }, 200, 'acme.com'],
  ['a backslash before @', { domain: 'http://globex.com\\@acme.com' }, 200, 'globex.com'],
  ['a domain with a trailing dot', { domain: 'GLOBEX.COM.' }, 200, 'globex.com'],
  ['an email with a trailing dot', { email: 'x@globex.com.' }, 200, 'globex.com'],
  ['an upper-case email with a trailing dot', { email: 'X@GLOBEX.COM.' }, 200, 'globex.com'],
  ['an email domain with a port', { email: 'x@globex.com:80' }, 400],
  ['a domain with a port', { domain: 'globex.com:80' }, 400],
  ['a URL with a default port', { domain: 'https://globex.com:443/' }, 400],
  ['a domain with userinfo', { domain: 'https://acme.com@globex.com/' }, 400],
];

function expectRow([, , status, domain]: Row, answer: number, text: string) {
  expect(answer).toBe(status);
  if (status === 400) expect(text).toBe('{"error":"Invalid input"}');
  else expect(JSON.parse(text).company.domain).toBe(domain);
}

function describeStore(label: string, open: () => Promise<LookupStore>) {
  describe(`normalisation on ${label}`, () => {
    let store: LookupStore;
    beforeAll(async () => {
      store = await open();
      const result = await store.ingest(events());
      expect(result.rejected).toEqual([
        { line: 5, reason: 'company.domain: not a domain' },
        { line: 6, reason: 'company.domain: not a domain' },
        { line: 7, reason: 'contact.email: not an email address' },
      ]);
    });
    afterAll(() => store?.close());

    it('counts the URL-shaped events where a browser would', async () => {
      const acme = await store.lookup({ workspace: 'default', domain: 'acme.com' });
      const globex = await store.lookup({ workspace: 'default', domain: 'globex.com' });
      expect([acme?.company.service_sessions, globex?.company.service_sessions]).toEqual([2, 2]);
    });

    it.each(ROWS)('%s -> %i', async (...row) => {
      const handler = createLookupHandler({ store, keys: KEYS });
      const response = await handler(
        new Request('http://lookup.test/api/service/lookup', {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify(row[1]),
        }),
      );
      expectRow(row, response.status, await response.text());
    });
  });
}

describeStore('the embedded store', () => openEmbeddedStore());

const database = await createTestDatabase();
describe('PostgreSQL', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeStore('PostgreSQL', () => openPostgresStore({ connectionString: database.url }));
});

describe('through service-lookup serve', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'normalize-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('answers every row as the handler does', async () => {
    const file = join(dir, 'events.ndjson');
    await writeFile(
      file,
      `${events()
        .map((e) => JSON.stringify(e))
        .join('\n')}\n`,
    );
    const served = await serve(['--events', file, '--key', KEY]);
    try {
      expect(served.stdout()).toMatch(/4 ingested, 0 unchanged, 0 replaced, 3 rejected/);
      for (const row of ROWS) {
        const response = await lookup(served.origin, KEY, row[1]);
        expectRow(row, response.status, await response.text());
      }
    } finally {
      expect(await served.stop()).toBe(0);
    }
  }, 60_000);
});
