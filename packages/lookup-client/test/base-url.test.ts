/**
 * What `baseUrl` may hold: the key never leaves in cleartext for a host other than loopback
 * unless the caller names the risk, and a URL holding credentials is refused before any request.
 */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigurationError, type FetchFunction, LookupClient } from '../src/index.js';
import { KEY, lookupBody } from './support/fixtures.js';
import { sendJson, startServer, type TestServer } from './support/http-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function serveLookup(): Promise<TestServer> {
  server = await startServer((_request, response) => sendJson(response, 200, lookupBody));
  return server;
}

/** The error `new LookupClient(options)` throws. */
function refusal(baseUrl: string, more: object = {}): ConfigurationError {
  try {
    new LookupClient({ secretKey: KEY, baseUrl, ...more });
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigurationError);
    return error as ConfigurationError;
  }
  throw new Error(`new LookupClient() accepted ${baseUrl}`);
}

/** A `fetch` that delivers every request to `target`'s origin, as DNS pointing a name there would. */
function routedTo(target: string): FetchFunction {
  return (input, init) => {
    const url = new URL(input);
    return fetch(new URL(url.pathname, target), init);
  };
}

describe('plain http', () => {
  it.each([
    'http://lookup.example.com',
    'http://10.0.0.7:8080',
    'http://[fe80::1]',
    'http://localhost.example.com',
    'http://127.0.0.1.example.com',
  ])('to %s is refused at construction, nothing sent', async (baseUrl) => {
    const target = await serveLookup();
    const error = refusal(baseUrl, { fetch: routedTo(target.baseUrl) });
    expect(error.code).toBe('configuration_error');
    expect(error.message).toContain('dangerouslyAllowInsecureHttp');
    expect(target.requests).toHaveLength(0);
  });

  it('to a host other than loopback is sent, key and all, when dangerouslyAllowInsecureHttp is set', async () => {
    const target = await serveLookup();
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: 'http://lookup.example.com',
      fetch: routedTo(target.baseUrl),
      dangerouslyAllowInsecureHttp: true,
    });
    await expect(client.lookup({ domain: 'acme.com' })).resolves.toEqual(lookupBody);
    expect(target.requests[0]?.headers.authorization).toBe(`Bearer ${KEY}`);
  });

  it.each(['127.0.0.1', 'localhost', '127.1.2.3', '[::1]'])(
    'to loopback (%s) needs no option',
    async (host) => {
      const target = await serveLookup();
      const port = new URL(target.baseUrl).port;
      const client = new LookupClient({
        secretKey: KEY,
        baseUrl: `http://${host}:${port}`,
        fetch: routedTo(target.baseUrl),
      });
      await expect(client.lookup({ domain: 'acme.com' })).resolves.toEqual(lookupBody);
      expect(target.requests).toHaveLength(1);
    },
  );
});

describe('credentials in baseUrl', () => {
  it.each([
    ['user and password', 'http://ada:hunter2-pass@127.0.0.1', 'hunter2-pass'],
    ['a user alone', 'https://hunter2-user@lookup.example.com', 'hunter2-user'],
    ['a percent-encoded password', 'https://ada:hunter2%40pass@lookup.example.com', 'hunter2'],
  ])(
    'with %s are refused at construction, the secret echoed nowhere',
    async (_label, url, secret) => {
      const target = await serveLookup();
      const baseUrl = url.replace('127.0.0.1', new URL(target.baseUrl).host);
      const error = refusal(baseUrl, { fetch: routedTo(target.baseUrl) });
      expect(error.code).toBe('configuration_error');
      expect(error.message).toContain('credentials');
      const printed = [inspect(error, { depth: 10, showHidden: true }), JSON.stringify(error)];
      expect(printed.join('\n')).not.toContain(secret);
      expect(error.cause).toBeUndefined();
      expect(target.requests).toHaveLength(0);
    },
  );
});
