/**
 * Issue 11, findings 1 and 2: the secret key never reaches another origin, and no field of any
 * error holds it, against real node:http servers on loopback.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  type KeyTransport,
  LookupClient,
  type LookupError,
  RedirectError,
} from '../src/index.js';
import { failure } from './support/failure.js';
import { KEY, lookupBody } from './support/fixtures.js';
import { type Responder, sendJson, startServer, type TestServer } from './support/http-server.js';

const servers: TestServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function serve(respond: Responder): Promise<TestServer> {
  const server = await startServer(respond);
  servers.push(server);
  return server;
}

/** Everything a logger could print of an error. */
function printed(error: LookupError): string {
  return [
    JSON.stringify(error),
    inspect(error, { depth: 10, showHidden: true }),
    error.stack,
    String(error.cause),
    JSON.stringify(error.body),
    JSON.stringify([...(error.headers ?? [])]),
  ].join('\n');
}

describe('redirects', () => {
  it.each(['auto', 'bearer', 'header', 'body'] as const)(
    'a 307 to another origin is a RedirectError under %s; the other origin gets nothing',
    async (keyTransport: KeyTransport | 'auto') => {
      const elsewhere = await serve((_request, response) => sendJson(response, 200, lookupBody));
      const origin = await serve((_request, response) => {
        response.writeHead(307, { location: `${elsewhere.baseUrl}/steal?key=${KEY}` });
        response.end();
      });
      const client = new LookupClient({ secretKey: KEY, baseUrl: origin.baseUrl, keyTransport });
      const error = await failure(client.lookup({ email: 'ada@acme.com' }));
      expect(error).toBeInstanceOf(RedirectError);
      expect(error).toMatchObject({ code: 'redirect', status: 307 });
      expect((error as RedirectError).location).toBe(
        `${elsewhere.baseUrl}/steal?key=sk_live_[redacted]`,
      );
      expect(error.message).toContain(`to ${elsewhere.baseUrl}/steal`);
      expect(printed(error)).not.toContain(KEY);
      expect(elsewhere.requests).toHaveLength(0);
      expect(origin.requests).toHaveLength(1); // no retry, no other transport
    },
  );
});

describe('no error holds the key', () => {
  const echo: Responder = (request, response) =>
    sendJson(
      response,
      Number(request.url?.split('/')[1]),
      { error: `bad key ${request.headers.authorization}`, key: request.body.secretKey },
      { 'x-echo': String(request.headers.authorization ?? request.body.secretKey) },
    );

  it.each([
    [400, 'bearer'],
    [401, 'bearer'],
    [403, 'body'],
    [404, 'bearer'],
    [429, 'bearer'],
    [500, 'body'],
  ] as const)('%i echoing the key sent by %s', async (status, keyTransport) => {
    const server = await serve(echo);
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: `${server.baseUrl}/${status}`,
      keyTransport,
      maxRetries: 0,
    });
    const error = await failure(client.lookup({ email: 'ada@acme.com' }));
    expect(error.status).toBe(status);
    expect(printed(error)).not.toContain(KEY);
    expect(printed(error)).toContain('sk_live_[redacted]');
  });

  it('a success body that breaks the contract and holds the key', async () => {
    const server = await serve((_request, response) =>
      sendJson(response, 200, { company: KEY, contacts: [] }),
    );
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error.code).toBe('response_validation_error');
    expect(printed(error) + JSON.stringify((error as { issues?: unknown }).issues)).not.toContain(
      KEY,
    );
  });

  it('a connection error while the key travels in the body', async () => {
    const closed = await serve(() => undefined);
    await closed.close();
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: closed.baseUrl,
      keyTransport: 'body',
      maxRetries: 0,
    });
    expect(printed(await failure(client.lookup({ email: 'ada@acme.com' })))).not.toContain(KEY);
  });

  it('a timeout', async () => {
    const server = await serve(() => undefined);
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl, maxRetries: 0 });
    const error = await failure(client.lookup({ email: 'ada@acme.com' }, { timeout: 30 }));
    expect(error.code).toBe('timeout');
    expect(printed(error)).not.toContain(KEY);
  });

  it.each([
    ['a line break', `${KEY}\n`],
    ['a non-ASCII character', `${KEY}é`],
    ['a space inside', 'sk_live_abc def'],
  ])('a key with %s is refused at construction, without echoing it', (_label, secretKey) => {
    let error: unknown;
    try {
      new LookupClient({ secretKey, baseUrl: 'https://lookup.example.com' });
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(printed(error as LookupError)).not.toContain(secretKey.slice(8));
  });

  it('a header value fetch would refuse is a ConfigurationError, at construction and per call', async () => {
    const bad = { 'x-trace': 'line\nbreak' };
    expect(
      () => new LookupClient({ secretKey: KEY, baseUrl: 'https://x.example', headers: bad }),
    ).toThrow(ConfigurationError);
    const server = await serve((_request, response) => sendJson(response, 200, lookupBody));
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    await expect(client.lookup({ domain: 'acme.com' }, { headers: bad })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    expect(server.requests).toHaveLength(0);
  });
});
