/**
 * @service/lookup-client against the real lookup: the handler over an embedded store, served by
 * node:http on loopback, optionally behind a gateway that strips key headers.
 */
import { createServer, request as httpRequest, type Server } from 'node:http';
import { LookupClient, NotFoundError, UnauthorizedError } from '@service/lookup-client';
import { close, listen } from '@service/test-support';
import { sentBy } from '@service/test-support/sent-by';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupHandler, type LookupStore, openEmbeddedStore } from '../src/index.js';
import { toNodeListener } from '../src/node.js';
import { session } from './support/events.js';

const KEY = 'sk_live_integration_0123456789abcdef';
const ada = { email: 'ada@acme.com', name: 'Ada', title: 'CTO' };

/** A reverse proxy in front of `target` that drops the named request headers. */
function gatewayStripping(target: string, dropped: string[]): Server {
  return createServer((incoming, outgoing) => {
    const headers = { ...incoming.headers };
    for (const name of dropped) delete headers[name];
    const upstream = httpRequest(
      `${target}${incoming.url}`,
      { method: incoming.method, headers },
      (answer) => {
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
      },
    );
    incoming.pipe(upstream);
  });
}

let store: LookupStore;
const servers: Server[] = [];
let origin: string;

beforeAll(async () => {
  store = await openEmbeddedStore();
  const result = await store.ingest([
    session('s1', '2026-03-01T10:00:00.000Z', { contact: ada }),
    session('s2', '2026-03-02T10:00:00.000Z', { contact: ada }),
    session('s3', '2026-03-03T10:00:00.000Z'),
  ]);
  expect(result.rejected).toEqual([]);
  const handler = createLookupHandler({ store, keys: [{ key: KEY }] });
  const server = createServer(toNodeListener(handler));
  servers.push(server);
  origin = await listen(server);
}, 30_000);

afterAll(async () => {
  for (const server of servers) await close(server);
  await store?.close();
});

describe('against lookup-core', () => {
  it('finds a contact by email, with activity when asked', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: origin });
    const plain = await client.lookup({ email: 'ada@acme.com' });
    expect(plain.company).toMatchObject({ domain: 'acme.com', service_sessions: 3 });
    expect(plain.contacts.map((contact) => contact.email)).toEqual(['ada@acme.com']);
    expect(plain.contacts[0]).not.toHaveProperty('site_activity');

    const detailed = await client.lookup({ email: 'ada@acme.com' }, { includeActivity: true });
    expect(detailed.contacts[0]?.site_activity.map((entry) => entry.start_time)).toEqual([
      '2026-03-02T10:00:00.000Z',
      '2026-03-01T10:00:00.000Z',
    ]);
    expect(detailed.contacts[0]?.linkedin_activity).toEqual([]);
  });

  it('finds a company by domain', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: origin, keyTransport: 'body' });
    const result = await client.lookup({ domain: 'https://www.acme.com/pricing' });
    expect(result.company.name).toBe('Acme');
  });

  it("answers an unseen email with NotFoundError carrying the server's request id", async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: origin });
    const error = await client
      .lookup({ email: 'nobody@acme.com' })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(NotFoundError);
    expect((error as NotFoundError).requestId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers a wrong key with UnauthorizedError after trying every transport', async () => {
    const client = new LookupClient({ secretKey: `${KEY}x`, baseUrl: origin });
    const error = await client.lookup({ domain: 'acme.com' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ transportsTried: ['bearer', 'header', 'body'] });
  });

  it.each([
    [['authorization'], ['bearer', 'header']],
    [
      ['authorization', 'x-service-secret-key'],
      ['bearer', 'header', 'body'],
    ],
  ])('gets through a gateway stripping %j', async (dropped, expectedTries) => {
    const gateway = gatewayStripping(origin, dropped);
    servers.push(gateway);
    const tries: string[] = [];
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: await listen(gateway),
      fetch: (input, init) => {
        tries.push(sentBy(init.headers));
        return fetch(input, init);
      },
    });
    await expect(client.lookup({ email: 'ada@acme.com' })).resolves.toMatchObject({
      company: { domain: 'acme.com' },
    });
    await client.lookup({ email: 'ada@acme.com' });
    expect(tries).toEqual([...expectedTries, expectedTries.at(-1)]);
  });
});
