/**
 * Issue 14 item 5: a key header that is present must carry exactly one usable key. Before, an
 * `Authorization: Basic <other workspace's key>` (or `Bearer a b`, or two `Authorization` headers)
 * was ignored and the body's `secretKey` answered 200 with its workspace's data. Run on both
 * stores, through a `Request` (repeated headers arrive joined with ", ") and through node:http on
 * loopback (repeated headers arrive as separate lines).
 */
import { request as httpRequest } from 'node:http';
import { createTestDatabase, requires } from '@service/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { presentedHeaderKey } from '../src/http/credentials.js';
import {
  createKeyResolver,
  createLookupHandler,
  type LookupHandler,
  type LookupStore,
  openEmbeddedStore,
  openPostgresStore,
} from '../src/index.js';
import { baseEvents, KEY, KEYS, OTHER_KEY } from './support/events.js';
import { listen } from './support/transport.js';

/** Header lines as sent: a name may repeat. */
type Lines = Array<[string, string]>;

interface Row {
  name: string;
  headers: Lines;
  /** The workspace whose data answers, or 401. */
  answer: 'default' | 'other' | 401;
}

// Every row carries the body key of the `default` workspace; the header decides.
const ROWS: Row[] = [
  { name: 'no key header (control)', headers: [], answer: 'default' },
  {
    name: "Basic with the other workspace's key",
    headers: [['authorization', `Basic ${OTHER_KEY}`]],
    answer: 401,
  },
  {
    name: 'Basic with user:password',
    headers: [['authorization', `Basic ${Buffer.from(`x:${OTHER_KEY}`).toString('base64')}`]],
    answer: 401,
  },
  { name: 'Bearer a b', headers: [['authorization', `Bearer ${OTHER_KEY} ${KEY}`]], answer: 401 },
  { name: 'Bearer without a token', headers: [['authorization', 'Bearer']], answer: 401 },
  { name: 'an empty Authorization', headers: [['authorization', '']], answer: 401 },
  { name: 'a bare key as Authorization', headers: [['authorization', OTHER_KEY]], answer: 401 },
  {
    name: 'two Authorization headers',
    headers: [
      ['authorization', `Bearer ${OTHER_KEY}`],
      ['authorization', `Bearer ${KEY}`],
    ],
    answer: 401,
  },
  {
    name: 'the same Authorization twice',
    headers: [
      ['authorization', `Bearer ${OTHER_KEY}`],
      ['authorization', `Bearer ${OTHER_KEY}`],
    ],
    answer: 401,
  },
  {
    name: 'two x-service-secret-key headers',
    headers: [
      ['x-service-secret-key', OTHER_KEY],
      ['x-service-secret-key', KEY],
    ],
    answer: 401,
  },
  {
    name: 'a valid Bearer beside two x-service-secret-key headers',
    headers: [
      ['authorization', `Bearer ${OTHER_KEY}`],
      ['x-service-secret-key', KEY],
      ['x-service-secret-key', KEY],
    ],
    answer: 401,
  },
  {
    name: 'an x-service-secret-key of two words',
    headers: [['x-service-secret-key', `${OTHER_KEY} x`]],
    answer: 401,
  },
  // The order of docs/lookup-core/http-api.md ("The key"): a valid header key wins over the body's.
  {
    name: 'a valid Bearer key',
    headers: [['authorization', `Bearer ${OTHER_KEY}`]],
    answer: 'other',
  },
  {
    name: 'a valid lower-case bearer key',
    headers: [['authorization', `bearer  ${OTHER_KEY} `]],
    answer: 'other',
  },
  {
    name: 'a valid x-service-secret-key',
    headers: [['x-service-secret-key', OTHER_KEY]],
    answer: 'other',
  },
];

/** The body names a company of each workspace: `acme.com` (default) and `globex.com` (other). */
const bodyFor = (answer: Row['answer']) =>
  JSON.stringify({ domain: answer === 'other' ? 'globex.com' : 'acme.com', secretKey: KEY });

function expectAnswer(row: Row, status: number, text: string) {
  if (row.answer === 401) {
    expect([status, text], row.name).toEqual([401, '{"error":"Unauthorized"}']);
  } else {
    expect(status, row.name).toBe(200);
    expect(JSON.parse(text).company.domain, row.name).toBe(
      row.answer === 'other' ? 'globex.com' : 'acme.com',
    );
  }
}

/** Sends header lines exactly as given (node:http writes an array value as repeated lines). */
function sendLines(origin: string, lines: Lines, body: string) {
  const headers: Record<string, string[]> = { 'content-type': ['application/json'] };
  for (const [name, value] of lines) headers[name] = [...(headers[name] ?? []), value];
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = httpRequest(`${origin}/api/service/lookup`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

function describeCredentials(label: string, open: () => Promise<LookupStore>) {
  describe(`strict key headers on ${label}`, () => {
    let store: LookupStore;
    let handler: LookupHandler;
    let server: Awaited<ReturnType<typeof listen>>;
    beforeAll(async () => {
      store = await open();
      expect((await store.ingest(baseEvents())).rejected).toEqual([]);
      handler = createLookupHandler({ store, keys: KEYS });
      server = await listen(handler);
    });
    afterAll(async () => {
      await server?.close();
      await store?.close();
    });

    it.each(ROWS)('through a Request: $name -> $answer', async (row) => {
      const headers = new Headers({ 'content-type': 'application/json' });
      for (const [name, value] of row.headers) headers.append(name, value);
      const response = await handler(
        new Request('http://lookup.test/api/service/lookup', {
          method: 'POST',
          headers,
          body: bodyFor(row.answer),
        }),
      );
      expectAnswer(row, response.status, await response.text());
    });

    it.each(ROWS)('through node:http: $name -> $answer', async (row) => {
      const { status, text } = await sendLines(server.origin, row.headers, bodyFor(row.answer));
      expectAnswer(row, status, text);
    });
  });
}

describeCredentials('the embedded store', () => openEmbeddedStore());

const database = await createTestDatabase();
describe('PostgreSQL', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeCredentials('PostgreSQL', () => openPostgresStore({ connectionString: database.url }));
});

describe('presentedHeaderKey', () => {
  const from = (headers: Record<string, string | string[]>) => (name: string) => headers[name];
  it('reads one key per header, from a getter of strings or of one value per line', () => {
    expect(presentedHeaderKey(from({}))).toBeUndefined();
    expect(presentedHeaderKey(from({ authorization: `Bearer ${KEY}` }))).toBe(KEY);
    expect(presentedHeaderKey(from({ authorization: [`Bearer ${KEY}`] }))).toBe(KEY);
    expect(presentedHeaderKey(from({ 'x-service-secret-key': [` ${KEY} `] }))).toBe(KEY);
    expect(
      presentedHeaderKey(from({ authorization: [`Bearer ${KEY}`, `Bearer ${KEY}`] })),
    ).toBeNull();
    expect(presentedHeaderKey(from({ authorization: `Bearer ${KEY}, Bearer ${KEY}` }))).toBeNull();
    expect(presentedHeaderKey(from({ 'x-service-secret-key': '' }))).toBeNull();
  });

  it('no well-formed key holds a comma, so a joined repeat is never mistaken for a key', () => {
    expect(() => createKeyResolver([{ key: 'sk_live_0123456789,0123456789abcdef' }])).toThrow(
      /key #1 is not a live secret key/,
    );
  });
});
