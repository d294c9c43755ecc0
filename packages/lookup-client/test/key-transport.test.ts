/** How the secret key travels, against a real node:http server that accepts only some transports. */
import { afterEach, describe, expect, it } from 'vitest';
import { type KeyTransport, LookupClient, UnauthorizedError } from '../src/index.js';
import { KEY, lookupBody } from './support/fixtures.js';
import {
  type ReceivedRequest,
  sendJson,
  startServer,
  type TestServer,
} from './support/http-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

function transportOf(request: ReceivedRequest): KeyTransport | undefined {
  if (request.headers.authorization === `Bearer ${KEY}`) return 'bearer';
  if (request.headers['x-service-secret-key'] === KEY) return 'header';
  if (request.body.secretKey === KEY) return 'body';
  return undefined;
}

/** A server (or the gateway in front of it) on which only `accepted` transports get through. */
async function serverAccepting(accepted: readonly KeyTransport[]) {
  server = await startServer((request, response) => {
    const transport = transportOf(request);
    if (transport && accepted.includes(transport)) sendJson(response, 200, lookupBody);
    else sendJson(response, 401, { error: 'Unauthorized' });
  });
  return server;
}

describe('each transport', () => {
  it.each([
    ['bearer', { authorization: `Bearer ${KEY}` }, {}],
    ['header', { 'x-service-secret-key': KEY }, {}],
    ['body', {}, { secretKey: KEY }],
  ] as const)('%s sends the key there and nowhere else', async (transport, headers, body) => {
    const { baseUrl, requests } = await serverAccepting([transport]);
    const client = new LookupClient({ secretKey: KEY, baseUrl, keyTransport: transport });
    await expect(client.lookup({ email: 'ada@acme.com' })).resolves.toEqual(lookupBody);
    expect(requests).toHaveLength(1);
    const request = requests[0] as ReceivedRequest;
    expect(request.headers).toMatchObject(headers);
    expect(request.body).toEqual({ email: 'ada@acme.com', includeActivity: false, ...body });
    expect(request.url).toBe('/api/service/lookup');
    const keyInHeaders = Object.values(request.headers).filter((value) =>
      String(value).includes(KEY),
    );
    expect(keyInHeaders.length + (request.body.secretKey === KEY ? 1 : 0)).toBe(1);
  });

  it('an explicit transport does not fall back', async () => {
    const { baseUrl, requests } = await serverAccepting(['body']);
    const client = new LookupClient({ secretKey: KEY, baseUrl, keyTransport: 'header' });
    const error = await client.lookup({ domain: 'acme.com' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect((error as UnauthorizedError).transportsTried).toEqual(['header']);
    expect(requests.map(transportOf)).toEqual(['header']);
  });
});

describe("keyTransport 'auto'", () => {
  it('uses bearer when it works, and keeps using it', async () => {
    const { baseUrl, requests } = await serverAccepting(['bearer', 'header', 'body']);
    const client = new LookupClient({ secretKey: KEY, baseUrl });
    await client.lookup({ domain: 'acme.com' });
    await client.lookup({ domain: 'acme.com' });
    expect(requests.map(transportOf)).toEqual(['bearer', 'bearer']);
  });

  it('falls back to x-service-secret-key when Authorization is stripped, and remembers it', async () => {
    const { baseUrl, requests } = await serverAccepting(['header', 'body']);
    const client = new LookupClient({ secretKey: KEY, baseUrl });
    await expect(client.lookup({ domain: 'acme.com' })).resolves.toEqual(lookupBody);
    await expect(client.lookup({ domain: 'acme.com' })).resolves.toEqual(lookupBody);
    expect(requests.map(transportOf)).toEqual(['bearer', 'header', 'header']);
  });

  it('falls back to the body field when both headers are stripped, and remembers it', async () => {
    const { baseUrl, requests } = await serverAccepting(['body']);
    const client = new LookupClient({ secretKey: KEY, baseUrl });
    await client.lookup({ email: 'ada@acme.com' });
    await client.lookup({ email: 'ada@acme.com' });
    expect(requests.map(transportOf)).toEqual(['bearer', 'header', 'body', 'body']);
  });

  it('remembers a transport the lookup answered 404 through', async () => {
    server = await startServer((request, response) => {
      if (transportOf(request) === 'header') sendJson(response, 404, { error: 'Not found' });
      else sendJson(response, 401, { error: 'Unauthorized' });
    });
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    await expect(client.lookup({ email: 'nobody@acme.com' })).rejects.toMatchObject({
      code: 'not_found',
    });
    await expect(client.lookup({ email: 'nobody@acme.com' })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(server.requests.map(transportOf)).toEqual(['bearer', 'header', 'header']);
  });

  it('names every transport tried when none works', async () => {
    const { baseUrl } = await serverAccepting([]);
    const client = new LookupClient({ secretKey: KEY, baseUrl });
    const error = await client.lookup({ domain: 'acme.com' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ status: 401, transportsTried: ['bearer', 'header', 'body'] });
    expect((error as Error).message).toBe(
      'Lookup failed: 401 Unauthorized (secret key sent by: bearer, header, body)',
    );
  });

  // A wrong key cost three requests on every call, one with the key in the body.
  it('after every transport was refused, sends the key once (bearer) until a call succeeds', async () => {
    const { baseUrl, requests } = await serverAccepting([]);
    const client = new LookupClient({ secretKey: KEY, baseUrl });
    for (let call = 0; call < 3; call++) {
      await expect(client.lookup({ domain: 'acme.com' })).rejects.toBeInstanceOf(UnauthorizedError);
    }
    expect(requests.map(transportOf)).toEqual(['bearer', 'header', 'body', 'bearer', 'bearer']);
    const last = await client.lookup({ domain: 'acme.com' }).catch((reason: unknown) => reason);
    expect(last).toMatchObject({ transportsTried: ['bearer'] });
  });

  // `auto` never re-tested its choice.
  it('when the remembered transport starts getting 401, tries the others once more', async () => {
    let accepted: KeyTransport[] = ['bearer', 'header', 'body'];
    server = await startServer((request, response) => {
      const transport = transportOf(request);
      if (transport && accepted.includes(transport)) sendJson(response, 200, lookupBody);
      else sendJson(response, 401, { error: 'Unauthorized' });
    });
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    await client.lookup({ domain: 'acme.com' });
    accepted = ['header', 'body']; // a proxy in front starts stripping Authorization
    await expect(client.lookup({ domain: 'acme.com' })).resolves.toEqual(lookupBody);
    await expect(client.lookup({ domain: 'acme.com' })).resolves.toEqual(lookupBody);
    expect(server.requests.map(transportOf)).toEqual(['bearer', 'bearer', 'header', 'header']);
  });
});
