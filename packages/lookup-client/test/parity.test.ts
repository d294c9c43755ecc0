/**
 * Issue 11, finding 6: what openai-node and stripe-node offer that fits here: per-call
 * `maxRetries` and `headers`, SERVICE_BASE_URL, the request id and headers of a success
 * (`withResponse()`), and hooks for logging and tracing that never see the key.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  type AfterResponseState,
  type BeforeRequestState,
  type BeforeRetryState,
  LookupClient,
  ServerError,
} from '../src/index.js';
import { KEY, lookupBody } from './support/fixtures.js';
import { sendJson, startServer, type TestServer } from './support/http-server.js';

let server: TestServer;
/** Answers 503 (Retry-After: 0) to the first `failures` requests of a test, then the lookup. */
let failures = 0;
beforeAll(async () => {
  server = await startServer((request, response) => {
    if (failures > 0) {
      failures--;
      sendJson(response, 503, { error: 'Unavailable' }, { 'retry-after': '0' });
      return;
    }
    const id = request.headers['x-request-id'] ?? 'req_server';
    sendJson(response, 200, lookupBody, { 'x-request-id': String(id), 'x-served-by': 'a' });
  });
});
afterAll(() => server.close());
afterEach(() => {
  failures = 0;
  vi.unstubAllEnvs();
});

describe('per-call options', () => {
  it('maxRetries for one call overrides the client', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl, maxRetries: 0 });
    failures = 2;
    await expect(client.lookup({ domain: 'acme.com' }, { maxRetries: 2 })).resolves.toEqual(
      lookupBody,
    );
    failures = 1;
    await expect(client.lookup({ domain: 'acme.com' })).rejects.toBeInstanceOf(ServerError);
  });

  it('headers for one call are sent over the client ones, and only with that call', async () => {
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: server.baseUrl,
      headers: { 'x-tenant': 'acme', 'x-request-id': 'client' },
    });
    await client.lookup({ domain: 'acme.com' }, { headers: { 'x-request-id': 'req_call_1' } });
    await client.lookup({ domain: 'acme.com' });
    expect(server.requests.slice(-2).map((r) => r.headers['x-request-id'])).toEqual([
      'req_call_1',
      'client',
    ]);
    expect(server.requests.at(-2)?.headers['x-tenant']).toBe('acme');
  });
});

describe('SERVICE_BASE_URL', () => {
  it('is the base URL when none is passed, beside SERVICE_SECRET_KEY', async () => {
    vi.stubEnv('SERVICE_BASE_URL', `${server.baseUrl}/from-env`);
    vi.stubEnv('SERVICE_SECRET_KEY', KEY);
    await new LookupClient().lookup({ domain: 'acme.com' });
    expect(server.requests.at(-1)?.url).toBe('/from-env/api/service/lookup');
  });

  it('missing, with no baseUrl, is a ConfigurationError naming it', () => {
    vi.stubEnv('SERVICE_BASE_URL', undefined);
    expect(() => new LookupClient({ secretKey: KEY })).toThrow(/SERVICE_BASE_URL/);
  });
});

describe('withResponse()', () => {
  it('gives the data with the status, headers, request id, transport and attempts', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    failures = 1;
    const { data, response } = await client
      .lookup({ domain: 'acme.com' }, { headers: { 'x-request-id': 'req_7' } })
      .withResponse();
    expect(data).toEqual(lookupBody);
    expect(response).toMatchObject({
      status: 200,
      requestId: 'req_7',
      transport: 'bearer',
      attempts: 2,
    });
    expect(response.headers.get('x-served-by')).toBe('a');
  });

  it('rejects as the lookup does, and an unread plain promise is not an unhandled rejection', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl, maxRetries: 0 });
    failures = 1;
    await expect(client.lookup({ domain: 'acme.com' }).withResponse()).rejects.toBeInstanceOf(
      ServerError,
    );
  });
});

describe('hooks', () => {
  it('see every request, retry and answer, with the key redacted everywhere', async () => {
    const seen: string[] = [];
    const texts: string[] = [];
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: server.baseUrl,
      keyTransport: 'body',
      hooks: {
        beforeRequest: [
          async ({ request }: BeforeRequestState) => {
            seen.push(`request ${request.method}`);
            texts.push(JSON.stringify([...request.headers]), await request.text());
          },
        ],
        beforeRetry: [
          ({ error, retryCount }: BeforeRetryState) => {
            seen.push(`retry ${retryCount} after ${error.code}`);
            texts.push(JSON.stringify(error));
          },
        ],
        afterResponse: [
          ({ response, request }: AfterResponseState) => {
            seen.push(`response ${response.status}`);
            texts.push(JSON.stringify([...request.headers]));
          },
        ],
      },
    });
    failures = 1;
    await client.lookup({ domain: 'acme.com' });
    expect(seen).toEqual([
      'request POST',
      'response 503',
      'retry 1 after server_error',
      'response 200',
    ]);
    expect(texts.join('\n')).not.toContain(KEY);
    expect(texts[1]).toContain('"secretKey":"sk_live_[redacted]"');
  });

  it('headers set in beforeRequest are sent (tracing), but not over the key', async () => {
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: server.baseUrl,
      hooks: {
        beforeRequest: [
          ({ request }) => {
            request.headers.set(
              'traceparent',
              '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
            );
            request.headers.set('authorization', 'Bearer sk_live_someone_else');
          },
        ],
      },
    });
    await client.lookup({ domain: 'acme.com' });
    expect(server.requests.at(-1)?.headers).toMatchObject({
      traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      authorization: `Bearer ${KEY}`,
    });
  });

  it('an error thrown by a hook ends the call as it is', async () => {
    const oops = new Error('logger down');
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: server.baseUrl,
      hooks: {
        afterResponse: [
          () => {
            throw oops;
          },
        ],
      },
    });
    await expect(client.lookup({ domain: 'acme.com' })).rejects.toBe(oops);
  });
});
