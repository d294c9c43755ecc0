/**
 * Hostile input, property-based: whatever arrives (any JSON, any bytes, huge strings, deep
 * nesting, `__proto__`/`constructor` keys, unicode and IDN domains, odd-case and plus-tag emails,
 * any key in any transport), through a `Request` object and through node:http, the lookup never
 * answers 500, never shows a stack or the presented key, and a valid lookup afterwards returns
 * exactly what it did before. Bodies over the limit are refused before they are read whole (bytes
 * pulled from the body are counted); bodies that never finish, or dribble in, time out.
 * The number of runs of each property is printed.
 */
import { request as httpRequest } from 'node:http';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createLookupHandler,
  type LookupHandler,
  type LookupStore,
  openEmbeddedStore,
} from '../src/index.js';
import { baseEvents, KEY, KEYS, OTHER_KEY, session } from './support/events.js';
import { listen } from './support/transport.js';

const LIMIT = 4096;
const BODY_TIMEOUT_MS = 150;
const PATH = '/api/service/lookup';

/** Unicode and IDN identities, a plus-tagged contact, and one that differs only by the tag. */
const IDN = { domain: 'bücher.de', email: 'Jörg+News@Bücher.de' };
const identityEvents = () => [
  session('idn-1', '2025-04-01T10:00:00Z', {
    company: { domain: 'https://www.Bücher.de/shop', name: 'Bücher' },
    contact: { email: IDN.email, name: 'Jörg' },
  }),
  session('plus-1', '2025-04-02T10:00:00Z', {
    company: { domain: 'plus.io' },
    contact: { email: 'Ann+Ads@Plus.io' },
  }),
  session('plus-2', '2025-04-03T10:00:00Z', {
    company: { domain: 'plus.io' },
    contact: { email: 'ann@plus.io', title: 'untagged' },
  }),
  session('cjk-1', '2025-04-04T10:00:00Z', {
    company: { domain: '例え.テスト', name: '例え' },
    contact: { email: 'ユーザー@例え.テスト' },
  }),
];

/** The valid lookups whose answers must never change, with the key each is asked with. */
const PROBES: Array<[string, Record<string, unknown>]> = [
  [KEY, { domain: 'acme.com', includeActivity: true }],
  [KEY, { email: 'ann@acme.com' }],
  [KEY, { domain: 'bücher.de', includeActivity: true }],
  [KEY, { email: 'jörg+news@bücher.de' }],
  [KEY, { email: 'ann+ads@plus.io', includeActivity: true }],
  [KEY, { domain: '例え.テスト' }],
  [OTHER_KEY, { email: 'hank@globex.com', includeActivity: true }],
  [KEY, { domain: 'globex.com' }], // another workspace's: 404
];

let store: LookupStore;
let handler: LookupHandler;
let server: Awaited<ReturnType<typeof listen>>;
const runs: Record<string, number> = {};
const count = (property: string) => {
  runs[property] = (runs[property] ?? 0) + 1;
};

beforeAll(async () => {
  store = await openEmbeddedStore();
  const ingested = await store.ingest([...baseEvents(), ...identityEvents()]);
  expect(ingested.rejected).toEqual([]);
  handler = createLookupHandler({ store, keys: KEYS, maxBodyBytes: LIMIT });
  server = await listen(handler, { bodyTimeoutMs: BODY_TIMEOUT_MS });
});
afterAll(async () => {
  console.log(
    `hostile-input runs: ${Object.entries(runs)
      .map(([p, n]) => `${p} ${n}`)
      .join(', ')}`,
  );
  await server?.close();
  await store?.close();
});

interface Sent {
  headers: Record<string, string>;
  body: Uint8Array<ArrayBuffer> | string;
}

async function viaRequest(sent: Sent) {
  const response = await handler(
    new Request(`http://lookup.test${PATH}`, {
      method: 'POST',
      headers: sent.headers,
      body: sent.body,
    }),
  );
  return { status: response.status, text: await response.text() };
}

async function viaHttp(sent: Sent) {
  const response = await fetch(`${server.origin}${PATH}`, {
    method: 'POST',
    headers: sent.headers,
    body: sent.body,
  });
  return { status: response.status, text: await response.text() };
}

async function probeAnswers() {
  const answers = [];
  for (const [key, body] of PROBES) {
    answers.push(
      await viaRequest({
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
  }
  return answers;
}

// ---------------------------------------------------------------------------------------------
// Generators

const FIELDS = ['email', 'domain', 'includeActivity', 'secretKey'];
const hostileKey = fc.oneof(
  fc.constantFrom(...FIELDS, '__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty'),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
const hugeString = fc
  .tuple(
    fc.constantFrom('a', 'é', '😀', '\u0000', '\ud800', '@'),
    fc.integer({ min: 300, max: 3000 }),
  )
  .map(([c, n]) => c.repeat(n));
const unicodeDomain = fc.oneof(
  fc.domain(),
  fc.constantFrom(
    'bücher.de',
    'BÜCHER.DE',
    'xn--bcher-kva.de',
    '例え.テスト',
    'пример.рф',
    'ﬁ.com',
    'İstanbul.tr',
  ),
  fc
    .tuple(
      fc.constantFrom('https://', 'http://www.', 'HTTPS://WWW.', '', '//'),
      fc.domain(),
      fc.constantFrom('', '/', ':8080/x?y#z', '.'),
    )
    .map((p) => p.join('')),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
);
const oddEmail = fc.oneof(
  fc.mixedCase(fc.emailAddress()),
  fc
    .tuple(
      fc.mixedCase(fc.constantFrom('ann', 'jörg', 'ユーザー')),
      fc.string({ maxLength: 8 }),
      unicodeDomain,
    )
    .map(([l, t, d]) => `${l}+${t}@${d}`),
  fc.constantFrom('@', 'a@', '@b', 'a@@b', ' a@b ', 'ANN@ACME.COM', 'ann+@acme.com', '"a b"@c.d'),
  fc.string({ unit: 'binary', maxLength: 60 }),
);
const anyValue = fc.oneof(
  { depthSize: 'small' },
  fc.jsonValue(),
  fc.anything(),
  hugeString,
  unicodeDomain,
  oddEmail,
);
const hostileObject = fc.oneof(
  fc.record(
    {
      email: fc.oneof(oddEmail, anyValue),
      domain: fc.oneof(unicodeDomain, anyValue),
      includeActivity: anyValue,
      secretKey: anyValue,
    },
    { requiredKeys: [] },
  ),
  fc.dictionary(hostileKey, anyValue, { maxKeys: 8 }),
  fc.object({ key: hostileKey, maxDepth: 4 }),
);
/** Nesting deep enough to break a naive recursive parser or walker. */
const deepNesting = fc
  .tuple(fc.integer({ min: 100, max: 5000 }), fc.constantFrom('[', '{"domain":'), fc.boolean())
  .map(([depth, open, closed]) => {
    const close = open === '[' ? ']' : '}';
    return (
      open.repeat(depth) + (open === '[' ? '' : '"acme.com"') + (closed ? close.repeat(depth) : '')
    );
  });
const body: fc.Arbitrary<Uint8Array<ArrayBuffer> | string> = fc.oneof(
  hostileObject.map((o) => JSON.stringify(o)),
  fc.json(),
  deepNesting,
  fc.uint8Array({ maxLength: 600 }),
  fc.string({ unit: 'binary', maxLength: 300 }),
  hugeString.map((s) => JSON.stringify({ domain: s, email: s })),
);
const validKey = fc.constantFrom(KEY, OTHER_KEY);
const presentedKey = fc.oneof(
  validKey,
  fc.string({ maxLength: 60 }).map((s) => `sk_live_${s}`),
  fc.string({ unit: 'binary', maxLength: 40 }),
);
const transport = fc.constantFrom('bearer', 'header', 'body', 'none');
const contentType = fc.oneof(
  { weight: 4, arbitrary: fc.constant('application/json') },
  fc.constantFrom(
    'application/json; charset=utf-8',
    'application/vnd.api+json',
    'text/plain',
    'application/x-www-form-urlencoded',
    '',
  ),
  fc.string({ maxLength: 30 }),
);

/** A request: a hostile body, a key in one transport (the body transport wraps the body). */
const hostileRequest: fc.Arbitrary<Sent & { key: string }> = fc
  .tuple(body, presentedKey, transport, contentType)
  .map(([b, key, how, type]) => {
    const headers: Record<string, string> = {};
    // Header values must be ByteStrings without CR/LF, or fetch refuses to send them at all.
    const headerSafe = /^[\x21-\x7e]*$/.test(key);
    if (type !== '' && /^[\x20-\x7e]*$/.test(type)) headers['content-type'] = type;
    if (how === 'bearer' && headerSafe) headers.authorization = `Bearer ${key}`;
    if (how === 'header' && headerSafe) headers['x-service-secret-key'] = key;
    if (how === 'body') {
      const text = typeof b === 'string' ? b : Buffer.from(b).toString('latin1');
      return {
        headers,
        key,
        body: `{"secretKey":${JSON.stringify(key)},"hostile":${JSON.stringify(text)}}`,
      };
    }
    return { headers, key, body: b };
  });

const ALLOWED = [200, 400, 401, 404, 413, 415];
const STACK = /\bat .+[:(]\d+:\d+|\n\s+at |Error:|node:internal|\.ts:\d+/;

function expectClean(answer: { status: number; text: string }, key: string) {
  expect(ALLOWED).toContain(answer.status);
  expect(answer.text).not.toMatch(STACK);
  if (key.length >= 8) expect(answer.text).not.toContain(key);
  const parsed = JSON.parse(answer.text);
  if (answer.status === 200) expect(parsed).toHaveProperty('company');
  else expect(Object.keys(parsed)).toEqual(['error']);
}

// ---------------------------------------------------------------------------------------------

describe('hostile requests', () => {
  it('through Request objects: never a 500, a stack or the key, and valid lookups unchanged', async () => {
    const before = await probeAnswers();
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (sent) => {
        count('request-object');
        expectClean(await viaRequest(sent), sent.key);
      }),
      { numRuns: 2000 },
    );
    expect(await probeAnswers()).toEqual(before);
  }, 120_000);

  it('through node:http: the same, bytes on the wire', async () => {
    const before = await probeAnswers();
    await fc.assert(
      fc.asyncProperty(hostileRequest, async (sent) => {
        count('node-http');
        expectClean(await viaHttp(sent), sent.key);
      }),
      { numRuns: 500 },
    );
    expect(await probeAnswers()).toEqual(before);
  }, 120_000);

  it('an identity in any case or URL form finds the same answer as its canonical form', async () => {
    const ask = (body: object) =>
      viaRequest({
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const canonical = new Map<string, string>();
    for (const probe of [
      { email: 'jörg+news@bücher.de' },
      { email: 'ann+ads@plus.io' },
      { email: 'ann@plus.io' },
      { domain: 'bücher.de' },
      { domain: '例え.テスト' },
    ])
      canonical.set(JSON.stringify(probe), (await ask(probe)).text);
    expect(JSON.parse(canonical.get('{"email":"ann+ads@plus.io"}') ?? '').contacts[0].email).toBe(
      'ann+ads@plus.io',
    );
    expect(JSON.parse(canonical.get('{"email":"ann@plus.io"}') ?? '').contacts[0].title).toBe(
      'untagged',
    );
    // One IDN form: the punycode spelling finds what was ingested in Unicode, and answers in it.
    expect((await ask({ domain: 'xn--bcher-kva.de' })).text).toBe(
      canonical.get('{"domain":"bücher.de"}'),
    );
    expect((await ask({ email: 'jörg+news@xn--bcher-kva.de' })).text).toBe(
      canonical.get('{"email":"jörg+news@bücher.de"}'),
    );
    expect(JSON.parse(canonical.get('{"domain":"bücher.de"}') ?? '').company.domain).toBe(
      'xn--bcher-kva.de',
    );

    const variant = fc.oneof(
      fc
        .tuple(
          fc.mixedCase(fc.constantFrom('jörg+news@bücher.de', 'ann+ads@plus.io', 'ann@plus.io')),
          fc.constantFrom('', ' ', '\t'),
          fc.constantFrom('', '.'), // the root's trailing dot, for emails as for domains
        )
        .map(([email, pad, dot]) => ({
          asked: { email: `${pad}${email}${dot}${pad}` },
          canonical: { email: email.toLowerCase() },
        })),
      fc
        .tuple(
          fc.constantFrom('', 'https://', 'HTTP://', 'https://www.', 'WWW.'),
          fc.mixedCase(fc.constantFrom('bücher.de', '例え.テスト')),
          // A port is refused; a path, query or fragment is not the host.
          fc.constantFrom('', '/', '.', '/a?b=c', '#@globex.com', '?next=@globex.com'),
        )
        .map(([scheme, host, tail]) => ({
          asked: { domain: `${scheme}${host}${tail}` },
          canonical: { domain: host.toLowerCase() },
        })),
    );
    await fc.assert(
      fc.asyncProperty(variant, async ({ asked, canonical: form }) => {
        count('identity-forms');
        const answer = await ask(asked);
        expect(answer.status).toBe(200);
        expect(answer.text).toBe(canonical.get(JSON.stringify(form)));
      }),
      { numRuns: 150 },
    );
  }, 60_000);
});

describe('bodies that are too large, never finish, or dribble', () => {
  it('a body over the limit is refused having read at most the limit plus one chunk', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 8192 }),
        fc.integer({ min: 16, max: 4096 }),
        async (limit, chunk) => {
          count('over-limit');
          let pulled = 0;
          const endless = new ReadableStream<Uint8Array>({
            pull(controller) {
              pulled += chunk;
              controller.enqueue(new Uint8Array(chunk).fill(0x20));
            },
          });
          const limited = createLookupHandler({ store, keys: KEYS, maxBodyBytes: limit });
          const response = await limited(
            new Request(`http://lookup.test${PATH}`, {
              method: 'POST',
              headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
              body: endless,
              duplex: 'half',
            } as RequestInit),
          );
          expect(response.status).toBe(413);
          expect(await response.text()).toBe('{"error":"Payload too large"}');
          // The body never ends: anything short of an answer would hang. Read: the limit and the
          // chunk that crossed it, plus what the stream queued ahead (one chunk).
          expect(pulled).toBeLessThanOrEqual(limit + 2 * chunk);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a declared Content-Length over the limit is refused without reading a byte', async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const response = await handler(
      new Request(`http://lookup.test${PATH}`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${KEY}`,
          'content-type': 'application/json',
          'content-length': String(LIMIT + 1),
        },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(response.status).toBe(413);
    expect(pulled).toBeLessThanOrEqual(1); // a stream may prefetch one chunk on creation; none is read
  });

  /** Sends `prefix` of a valid body, then `drip` one byte every `everyMs`, never finishing. */
  function stall(prefix: string, drip: boolean) {
    return new Promise<{ status: number; text: string }>((resolve, reject) => {
      let dripper: NodeJS.Timeout | undefined;
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port: server.port,
          path: PATH,
          method: 'POST',
          headers: {
            authorization: `Bearer ${KEY}`,
            'content-type': 'application/json',
            'transfer-encoding': 'chunked',
          },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (d) => (text += d));
          res.on('end', () => {
            clearInterval(dripper);
            req.destroy();
            resolve({ status: res.statusCode ?? 0, text });
          });
        },
      );
      req.on('error', (error) => {
        clearInterval(dripper);
        reject(error);
      });
      if (prefix !== '') req.write(prefix);
      else req.flushHeaders();
      // Each byte comes well within the timeout; only the whole body is too slow.
      if (drip) dripper = setInterval(() => req.write(' '), BODY_TIMEOUT_MS / 5);
    });
  }

  it('a body that never finishes, or dribbles in a byte at a time, times out with 408 JSON', async () => {
    const valid = '{"domain":"acme.com"}';
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: valid.length - 1 }),
        fc.boolean(),
        async (cut, drip) => {
          count('stalled-body');
          expect(await stall(valid.slice(0, cut), drip)).toEqual({
            status: 408,
            text: '{"error":"Request timeout"}',
          });
        },
      ),
      { numRuns: 12 },
    );
    // And the server still answers.
    expect(
      (
        await viaHttp({
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: valid,
        })
      ).status,
    ).toBe(200);
  }, 30_000);
});
