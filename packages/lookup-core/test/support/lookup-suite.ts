/**
 * Every row of the lookup's behaviour tables (docs/lookup-core/http-api.md: the request, the key,
 * the answer, the errors; docs/lookup-core/operations.md: the limits), run through
 * a `Request` object, through real HTTP, and through the client's msw test double loaded with the
 * same data, against the store the calling test file opens. Every answer is checked
 * against the client's strict schemas and against the OpenAPI document.
 */
import { strictSchemas as schemas } from '@service/lookup-client';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupHandler, type LookupStore } from '../../src/index.js';
import { doubleTransport } from './double-transport.js';
import { baseEvents, KEY, KEY_ROTATED, KEYS, linkedin, OTHER_KEY, session } from './events.js';
import { expectDocumented } from './openapi-answers.js';
import { httpTransport, type RequestSpec, requestTransport, type Transport } from './transport.js';

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * A company with 12 contacts, one contact with 12 sessions and 12 LinkedIn entries, and a
 * company with no contact.
 */
function manyEvents() {
  const events = [];
  for (let i = 0; i < 12; i++) {
    const day = String(i + 1).padStart(2, '0');
    events.push(
      session(`many-${i}`, `2025-04-${day}T10:00:00.000Z`, {
        company: { domain: 'many.io', name: 'Many' },
        contact: { email: `c${i}@many.io` },
      }),
      session(`busy-${i}`, `2025-05-${day}T10:00:00.000Z`, {
        company: { domain: 'busy.io' },
        contact: { email: 'busy@busy.io' },
      }),
      linkedin(`busy-li-${i}`, `2025-05-${day}T11:00:00.000Z`, {
        company: { domain: 'busy.io' },
        contact: { email: 'busy@busy.io' },
      }),
    );
  }
  // A company without identified contacts (ingested up front, so the double holds it too).
  events.push(session('lonely-1', '2025-01-01T00:00:00Z', { company: { domain: 'lonely.dev' } }));
  return events;
}

/** Parses a success body with the lookup-client's contract and checks the activity arrays. */
function expectContract(body: unknown, withActivity: boolean) {
  if (withActivity) {
    const parsed = schemas.lookupResponseWithActivitySchema.safeParse(body);
    expect(parsed.error).toBeUndefined();
    return;
  }
  const parsed = schemas.lookupResponseSchema.safeParse(body);
  expect(parsed.error).toBeUndefined();
  for (const contact of (body as { contacts: object[] }).contacts) {
    expect(contact).not.toHaveProperty('site_activity');
    expect(contact).not.toHaveProperty('linkedin_activity');
  }
}

/**
 * Table rows `[name, request, status, ...]` titled `name -> status`: a printf title cannot name
 * the third column (`%i` formats the second, the request, as NaN).
 */
const titledWithStatus = <Rest extends unknown[] = []>(
  rows: Array<[string, RequestSpec, number, ...Rest]>,
) =>
  rows.map(
    ([name, spec, status, ...rest]) =>
      [`${name} -> ${status}`, spec, status, ...rest] as [string, RequestSpec, number, ...Rest],
  );

type LookupBody = {
  company: Record<string, unknown> & { domain: string };
  contacts: Array<Record<string, unknown> & { email: string; service_last_seen: string }>;
};

export function describeLookup(openStore: () => Promise<LookupStore>) {
  let store: LookupStore;
  const transports: Transport[] = [];

  beforeAll(async () => {
    store = await openStore();
    const result = await store.ingest([...baseEvents(), ...manyEvents()]);
    expect(result.rejected).toEqual([]);
    const maxBodyBytes = 4096;
    const handler = createLookupHandler({ store, keys: KEYS, maxBodyBytes });
    transports.push(
      requestTransport(handler),
      await httpTransport(handler),
      await doubleTransport(store, KEYS, { maxBodyBytes }),
    );
  });
  afterAll(async () => {
    await Promise.all(transports.map((t) => t.close()));
    await store?.close();
  });

  describe.each([
    [0, 'a Request object'],
    [1, 'node:http on loopback'],
    [2, 'the msw test double of @service/lookup-client/testing'],
  ])('through transport #%i, %s', (index) => {
    /** Sends a request; every success answer is parsed with the lookup-client's contract. */
    const send = async (spec: RequestSpec) => {
      const transport = transports[index];
      if (!transport) throw new Error('transport not ready');
      const sent = await transport.send(spec);
      expectDocumented(spec.method ?? 'POST', sent);
      if (sent.status === 200) {
        const asked = typeof spec.body === 'string' ? JSON.parse(spec.body) : spec.body;
        expectContract(sent.body, asked?.includeActivity === true);
      } else if (sent.body !== undefined) {
        expect(schemas.errorBodySchema.safeParse(sent.body).success).toBe(true);
      }
      return sent;
    };
    const bearer = (key = KEY) => ({ authorization: `Bearer ${key}` });
    const lookup = (body: unknown, key = KEY) => send({ headers: bearer(key), body });
    const ok = async (body: unknown, key = KEY) => {
      const sent = await lookup(body, key);
      expect(sent.status).toBe(200);
      return sent.body as LookupBody;
    };

    describe('authentication (http-api.md, "The key")', () => {
      it.each(
        titledWithStatus([
          ['no key', { body: { domain: 'acme.com' } }, 401],
          ['Authorization: Bearer', { headers: bearer(), body: { domain: 'acme.com' } }, 200],
          [
            'lower-case bearer scheme',
            { headers: { authorization: `bearer ${KEY}` }, body: { domain: 'acme.com' } },
            200,
          ],
          [
            'x-service-secret-key',
            { headers: { 'x-service-secret-key': KEY }, body: { domain: 'acme.com' } },
            200,
          ],
          ['body secretKey', { body: { domain: 'acme.com', secretKey: KEY } }, 200],
          [
            'a rotated second key of the workspace',
            { headers: bearer(KEY_ROTATED), body: { domain: 'acme.com' } },
            200,
          ],
          [
            'unknown key',
            {
              headers: bearer('sk_live_unknown_0123456789abcdefghij'),
              body: { domain: 'acme.com' },
            },
            401,
          ],
          [
            'key without the sk_live_ prefix',
            { headers: bearer(KEY.replace('sk_live_', 'sk_test_')), body: { domain: 'acme.com' } },
            401,
          ],
          [
            'sk_live_ + fewer than 24 characters',
            { headers: bearer('sk_live_short'), body: { domain: 'acme.com' } },
            401,
          ],
          [
            'Bearer preferred over x-service-secret-key (bearer wrong)',
            {
              headers: {
                ...bearer('sk_live_wrong_0123456789abcdefghijk'),
                'x-service-secret-key': KEY,
              },
              body: { domain: 'acme.com' },
            },
            401,
          ],
          [
            'Bearer preferred over x-service-secret-key (bearer right)',
            {
              headers: {
                ...bearer(),
                'x-service-secret-key': 'sk_live_wrong_0123456789abcdefghijk',
              },
              body: { domain: 'acme.com' },
            },
            200,
          ],
          [
            'header preferred over body secretKey',
            {
              headers: { 'x-service-secret-key': 'sk_live_wrong_0123456789abcdefghijk' },
              body: { domain: 'acme.com', secretKey: KEY },
            },
            401,
          ],
          [
            'a wrong header key with a malformed body: 401, not 400',
            { headers: bearer('sk_live_wrong_0123456789abcdefghijk'), body: '{nope' },
            401,
          ],
          ['no key and a malformed body: 401', { body: '{nope' }, 401],
          [
            'no key and a wrong content type: 401',
            { headers: { 'content-type': 'text/plain' }, body: 'x' },
            401,
          ],
          ['secretKey of the wrong type', { body: { domain: 'acme.com', secretKey: 42 } }, 401],
          // Issue 14 item 5: a key header that is present must carry exactly one usable key,
          // whatever valid key the body holds.
          ...(
            [
              ['Basic with a valid key', `Basic ${KEY}`],
              ['Bearer a b', `Bearer ${OTHER_KEY} ${KEY}`],
              ['Bearer without a token', 'Bearer'],
              ['an empty Authorization', ''],
              ['a repeated Authorization, as Fetch joins it', `Bearer ${KEY}, Bearer ${KEY}`],
            ] as const
          ).map(([name, authorization]): [string, RequestSpec, number] => [
            `${name}, body secretKey valid`,
            { headers: { authorization }, body: { domain: 'acme.com', secretKey: KEY } },
            401,
          ]),
          [
            'a repeated x-service-secret-key, as Fetch joins it',
            { headers: { 'x-service-secret-key': `${KEY}, ${KEY}` }, body: { domain: 'acme.com' } },
            401,
          ],
          [
            'an empty x-service-secret-key, body secretKey valid',
            {
              headers: { 'x-service-secret-key': '' },
              body: { domain: 'acme.com', secretKey: KEY },
            },
            401,
          ],
        ]),
      )('%s', async (_, spec, status) => {
        const sent = await send(spec);
        expect(sent.status).toBe(status);
        if (status === 401) expect(sent.body).toEqual({ error: 'Unauthorized' });
        expect(sent.text).not.toContain('sk_live_');
      });
    });

    describe('input (http-api.md, "The request" and "Errors")', () => {
      it.each<[string, unknown]>([
        ['neither email nor domain', {}],
        ['only includeActivity', { includeActivity: true }],
        ['blank email and domain', { email: ' ', domain: '' }],
        ['null email and domain', { email: null, domain: null }],
        ['email that is not an address', { email: 'not-an-email' }],
        ['domain with nothing left after normalising', { domain: 'https://' }],
        ['email of the wrong type', { email: 42 }],
        ['domain of the wrong type', { domain: ['acme.com'] }],
        ['includeActivity of the wrong type', { domain: 'acme.com', includeActivity: 'yes' }],
        ['over-long email', { email: `${'a'.repeat(400)}@acme.com` }],
        ['over-long domain', { domain: `${'a'.repeat(2100)}.com` }],
        ['domain longer than a DNS name', { domain: `${'a.'.repeat(127)}io` }],
        // Issue 14 item 7: a port or userinfo names a server, not a company.
        ['domain with a port', { domain: 'acme.com:8080' }],
        ['URL with its default port', { domain: 'https://acme.com:443/' }],
        ['domain with userinfo', { domain: 'https://initech.io@acme.com/' }],
        ['email whose domain has a port', { email: 'ann@acme.com:80' }],
        ['NUL in an email', { email: 'ann\u0000@acme.com' }],
        ['an array body', [{ domain: 'acme.com' }]],
        ['a JSON string body', 'acme.com'],
      ])('%s -> 400 Invalid input', async (_, body) => {
        const sent = await send({
          headers: bearer(),
          body: typeof body === 'string' ? JSON.stringify(body) : body,
        });
        expect(sent.status).toBe(400);
        expect(sent.body).toEqual({ error: 'Invalid input' });
      });

      it.each(
        titledWithStatus<[string]>([
          ['malformed JSON', { body: '{"domain": ' }, 400, 'Invalid input'],
          ['invalid UTF-8 is not JSON', { body: '\udcff' }, 400, 'Invalid input'],
          [
            'text/plain',
            { headers: { 'content-type': 'text/plain' }, body: '{"domain":"acme.com"}' },
            415,
            'Unsupported media type',
          ],
          [
            'form encoded',
            {
              headers: { 'content-type': 'application/x-www-form-urlencoded' },
              body: 'domain=acme.com',
            },
            415,
            'Unsupported media type',
          ],
          [
            'a body over the size limit',
            { body: { domain: 'acme.com', pad: 'x'.repeat(5000) } },
            413,
            'Payload too large',
          ],
        ]),
      )('%s', async (_, spec, status, error) => {
        const sent = await send({ ...spec, headers: { ...bearer(), ...spec.headers } });
        expect(sent.status).toBe(status);
        expect(sent.body).toEqual({ error });
      });

      it('accepts application/json with a charset and a +json type', async () => {
        for (const type of ['application/json; charset=utf-8', 'application/vnd.api+json']) {
          const sent = await send({
            headers: { ...bearer(), 'content-type': type },
            body: { domain: 'acme.com' },
          });
          expect(sent.status).toBe(200);
        }
      });

      // Issue 14 item 7: the host a browser would read, and no trailing dot.
      it.each([
        ['acme.com#@initech.io -> acme.com', { domain: 'acme.com#@initech.io' }, 'acme.com'],
        [
          'http://initech.io\\@acme.com -> initech.io',
          { domain: 'http://initech.io\\@acme.com' },
          'initech.io',
        ],
        ['ACME.COM. -> acme.com', { domain: 'ACME.COM.' }, 'acme.com'],
        ['ann@acme.com. -> ann@acme.com', { email: 'ann@acme.com.' }, 'acme.com'],
        ['ANN@ACME.COM. -> ann@acme.com', { email: 'ANN@ACME.COM.' }, 'acme.com'],
      ])('reads %s, as a browser would', async (_, body, domain) => {
        expect((await ok(body)).company.domain).toBe(domain);
      });

      it('ignores __proto__ and constructor keys', async () => {
        const sent = await send({
          headers: bearer(),
          body: '{"__proto__":{"email":"ann@acme.com"},"constructor":1,"domain":"initech.io"}',
        });
        expect((sent.body as LookupBody).company.domain).toBe('initech.io');
      });
    });

    describe('answers (http-api.md, "The answer"; operations.md, "Limits")', () => {
      it('a domain lookup returns the company and its contacts, most recently seen first', async () => {
        const body = await ok({ domain: 'acme.com' });
        expect(body.company).toEqual({
          domain: 'acme.com',
          name: 'Acme',
          industry: 'Software',
          service_sessions: 4,
          service_visitors: 3,
          service_first_seen: '2025-02-20T08:00:00.000Z',
          service_last_seen: '2025-03-05T08:00:00.000Z',
          service_purchase_intent: 'very_high',
        });
        expect(body.contacts).toEqual([
          {
            email: 'ann@acme.com',
            name: 'Ann Lee',
            title: 'CTO',
            service_sessions: 2,
            service_first_seen: '2025-03-01T10:00:00.000Z',
            service_last_seen: '2025-03-05T08:00:00.000Z',
          },
          {
            email: 'bob@acme.com',
            name: 'Bob Stone',
            title: 'Engineer',
            service_sessions: 1,
            service_first_seen: '2025-03-03T10:00:00.000Z',
            service_last_seen: '2025-03-03T10:05:00.000Z',
          },
        ]);
      });

      it('an email lookup returns that contact and its company', async () => {
        const body = await ok({ email: 'bob@acme.com' });
        expect(body.company.domain).toBe('acme.com');
        expect(body.contacts.map((c) => c.email)).toEqual(['bob@acme.com']);
      });

      it('email wins over domain', async () => {
        const body = await ok({ email: 'peter@initech.io', domain: 'acme.com' });
        expect(body.company.domain).toBe('initech.io');
        expect(body.contacts.map((c) => c.email)).toEqual(['peter@initech.io']);
      });

      it('emails match case-insensitively and domains are normalised', async () => {
        expect((await ok({ email: '  ANN@acme.COM ' })).contacts[0]?.email).toBe('ann@acme.com');
        expect((await ok({ domain: 'https://www.Acme.com/x' })).company.domain).toBe('acme.com');
      });

      it('a company without identified contacts answers with an empty list; unknown names null', async () => {
        const body = await ok({ domain: 'lonely.dev', includeActivity: true });
        expect(body.company).toMatchObject({ name: null, industry: null, service_sessions: 1 });
        expect(body.contacts).toEqual([]);
      });

      it.each([
        ['unknown domain', { domain: 'nobody.example' }],
        ['unknown email', { email: 'nobody@acme.com' }],
        ['a domain seen only as an email host', { domain: 'gmail.com' }],
      ])('%s -> 404 Not found (the lookup never enriches)', async (_, body) => {
        const sent = await lookup(body);
        expect(sent.status).toBe(404);
        expect(sent.body).toEqual({ error: 'Not found' });
      });

      it('returns at most 10 contacts, most recently seen first', async () => {
        const body = await ok({ domain: 'many.io' });
        expect(body.contacts.map((c) => c.email)).toEqual(
          [11, 10, 9, 8, 7, 6, 5, 4, 3, 2].map((i) => `c${i}@many.io`),
        );
      });

      it('without includeActivity (absent or false) contacts carry no activity arrays', async () => {
        await ok({ domain: 'acme.com' });
        await ok({ domain: 'acme.com', includeActivity: false });
      });

      it('with includeActivity every contact carries its sessions and LinkedIn engagement', async () => {
        const body = await ok({ domain: 'acme.com', includeActivity: true });
        const [annContact, bobContact] = body.contacts;
        expect(annContact?.site_activity).toEqual([
          {
            active_time: 120,
            start_time: '2025-03-02T10:00:00.000Z',
            end_time: '2025-03-02T10:05:00.000Z',
            pages_visited: ['/', '/pricing'],
            signals: ['pricing'],
            referrer: '',
            intent: 'medium',
            city: 'Berlin',
            state: 'Berlin',
            country: 'DE',
          },
          expect.objectContaining({
            start_time: '2025-03-01T10:00:00.000Z',
            intent: 'high',
            referrer: 'https://www.google.com/',
          }),
        ]);
        expect(annContact?.linkedin_activity).toEqual([
          {
            start_time: '2025-03-05T08:00:00.000Z',
            linkedin_impressions: 10,
            linkedin_clicks: 2,
            linkedin_likes: 1,
            linkedin_shares: 0,
            linkedin_comments: 1,
          },
        ]);
        expect(bobContact?.linkedin_activity).toEqual([]);
      });

      it('site_activity holds at most 10 sessions, most recent first', async () => {
        const body = await ok({ email: 'busy@busy.io', includeActivity: true });
        const contact = body.contacts[0] as unknown as {
          site_activity: Array<{ start_time: string }>;
          linkedin_activity: Array<{ start_time: string }>;
        };
        expect(body.contacts[0]?.service_sessions).toBe(12);
        expect(contact.site_activity.map((s) => s.start_time.slice(0, 10))).toEqual(
          [12, 11, 10, 9, 8, 7, 6, 5, 4, 3].map((d) => `2025-05-${String(d).padStart(2, '0')}`),
        );
        expect(contact.linkedin_activity).toHaveLength(10);
        expect(contact.linkedin_activity[0]?.start_time).toBe('2025-05-12T11:00:00.000Z');
      });

      it('writes every timestamp as ISO 8601 UTC with milliseconds', async () => {
        const body = await ok({ domain: 'acme.com', includeActivity: true });
        const stamps =
          JSON.stringify(body).match(
            /"(service_first_seen|service_last_seen|start_time|end_time)":"([^"]*)"/g,
          ) ?? [];
        expect(stamps.length).toBeGreaterThan(6);
        for (const stamp of stamps) expect(stamp.split('":"')[1]?.slice(0, -1)).toMatch(ISO_MS_UTC);
      });

      it('answers with JSON that no cache keeps', async () => {
        const sent = await lookup({ domain: 'acme.com' });
        expect(sent.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(sent.headers.get('cache-control')).toBe('no-store');
      });
    });

    describe('tenancy: a key sees its own workspace only', () => {
      it.each([
        ['domain of another workspace', { domain: 'acme.com' }, OTHER_KEY],
        ['email of another workspace', { email: 'ann@acme.com' }, OTHER_KEY],
        ['email, with activity', { email: 'ann@acme.com', includeActivity: true }, OTHER_KEY],
        ['the other way round: domain', { domain: 'globex.com' }, KEY],
        ['the other way round: email', { email: 'hank@globex.com' }, KEY],
      ])('%s -> 404', async (_, body, key) => {
        const sent = await lookup(body, key);
        expect(sent.status).toBe(404);
        expect(sent.text).not.toMatch(/acme|globex|Ann|Hank/);
      });

      it('the other key reads its own workspace', async () => {
        const body = await ok({ email: 'HANK@globex.com' }, OTHER_KEY);
        expect(body.company).toMatchObject({
          domain: 'globex.com',
          name: 'Globex',
          industry: 'Energy',
        });
      });
    });

    describe('routes and methods', () => {
      it.each([
        ['GET', 405],
        ['PUT', 405],
        ['DELETE', 405],
        ['PATCH', 405],
      ])('%s on the lookup path -> %i with Allow', async (method, status) => {
        const sent = await send({ method, headers: bearer() });
        expect(sent.status).toBe(status);
        expect(sent.headers.get('allow')).toBe('POST, OPTIONS');
        expect(sent.body).toEqual({ error: 'Method not allowed' });
      });

      it('HEAD -> 405 with Allow and no body', async () => {
        const sent = await send({ method: 'HEAD' });
        expect(sent.status).toBe(405);
        expect(sent.headers.get('allow')).toBe('POST, OPTIONS');
        expect(sent.text).toBe('');
      });

      it('OPTIONS -> 204 with Allow', async () => {
        const sent = await send({ method: 'OPTIONS' });
        expect(sent.status).toBe(204);
        expect(sent.headers.get('allow')).toBe('POST, OPTIONS');
      });

      it.each(['/', '/api/service', '/api/service/lookup/x', '/api/service/lookups'])(
        'POST %s -> 404 JSON',
        async (path) => {
          const sent = await send({ path, headers: bearer(), body: { domain: 'acme.com' } });
          expect(sent.status).toBe(404);
          expect(sent.body).toEqual({ error: 'Not found' });
        },
      );

      it('answers on any path ending with the lookup path, and with a trailing slash', async () => {
        for (const path of ['/internal/v2/api/service/lookup', '/api/service/lookup/']) {
          const sent = await send({ path, headers: bearer(), body: { domain: 'acme.com' } });
          expect(sent.status).toBe(200);
        }
      });
    });
  });

  it('the mount path is configurable', async () => {
    const handler = createLookupHandler({ store, keys: KEYS, path: '/lookup' });
    const request = (path: string) =>
      handler(
        new Request(`http://lookup.test${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: '{"domain":"acme.com"}',
        }),
      );
    expect((await request('/v1/lookup')).status).toBe(200);
    expect((await request('/api/service/search')).status).toBe(404);
  });

  it('answers are compact JSON: exactly the bytes JSON.stringify gives for the parsed answer', async () => {
    const handler = createLookupHandler({ store, keys: KEYS });
    for (const body of [
      { domain: 'acme.com' },
      { domain: 'acme.com', includeActivity: true },
      { email: 'ann@acme.com', includeActivity: true },
    ]) {
      // Asked twice: the first answer is read from the store, the second may come from its cache.
      for (const _ of [1, 2]) {
        const response = await handler(
          new Request('http://lookup.test/api/service/lookup', {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify(body),
          }),
        );
        const text = await response.text();
        expect(response.status).toBe(200);
        expect(text).toBe(JSON.stringify(JSON.parse(text)));
      }
    }
  });

  it('an unexpected store failure is a bare 500, reported to onError, never a stack', async () => {
    const reported: unknown[] = [];
    const failing: LookupStore = {
      ...store,
      lookup: () => Promise.reject(new Error('boom at /secret/path.ts:1')),
    };
    const handler = createLookupHandler({
      store: failing,
      keys: KEYS,
      onError: (e, context) => reported.push([e, context]),
    });
    const response = await handler(
      new Request('http://lookup.test/api/service/lookup', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: '{"domain":"acme.com"}',
      }),
    );
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('{"error":"Internal server error"}');
    expect(reported).toEqual([
      [expect.any(Error), { requestId: response.headers.get('x-request-id') }],
    ]);
  });

  it("every answer carries a request id: the caller's own when it is a plain token, else a UUID", async () => {
    const handler = createLookupHandler({ store, keys: KEYS });
    const send = (headers: Record<string, string>) =>
      handler(
        new Request('http://lookup.test/api/service/lookup', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: '{"domain":"acme.com"}',
        }),
      );
    const ok = await send({ authorization: `Bearer ${KEY}`, 'x-request-id': 'req_42.a:b-c' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-request-id')).toBe('req_42.a:b-c');
    const refused = await send({ 'x-request-id': 'two words' });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    const other = await send({});
    expect(other.headers.get('x-request-id')).not.toBe(refused.headers.get('x-request-id'));
  });

  it('hostile bodies never get a 500, a stack, or change what a valid lookup returns', async () => {
    const handler = createLookupHandler({ store, keys: KEYS });
    const post = (body: string, contentType = 'application/json') =>
      handler(
        new Request('http://lookup.test/api/service/lookup', {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': contentType },
          body,
        }),
      );
    const before = await (await post('{"domain":"acme.com","includeActivity":true}')).text();
    const field = fc.oneof(
      fc.string({ unit: 'binary' }),
      fc.anything(),
      fc.emailAddress(),
      fc.domain(),
      fc.constant('__proto__'),
    );
    const bodies = fc.oneof(
      fc.json(),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .record(
          { email: field, domain: field, includeActivity: field, secretKey: field },
          { requiredKeys: [] },
        )
        .map((o) => JSON.stringify(o)),
      fc.nat(3000).map((depth) => `${'['.repeat(depth)}${']'.repeat(depth)}`),
      fc.constant('{"__proto__":{"domain":"acme.com"},"constructor":{"prototype":{"x":1}}}'),
    );
    await fc.assert(
      fc.asyncProperty(bodies, async (body) => {
        const response = await post(body);
        const text = await response.text();
        expect([200, 400, 404, 413]).toContain(response.status);
        expect(text).not.toMatch(/\bat .+:\d+:\d+|Error:/);
      }),
      { numRuns: 300 },
    );
    expect(await (await post('{"domain":"acme.com","includeActivity":true}')).text()).toBe(before);
  }, 60_000);
}
