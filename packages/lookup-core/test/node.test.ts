// The node:http adapter: streaming body limit, slow bodies, pre-parsed bodies (Express/Fastify style).
import { createServer, request as httpRequest, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupHandler, type LookupStore, openEmbeddedStore } from '../src/index.js';
import { toNodeListener } from '../src/node.js';
import { baseEvents, KEY, KEYS } from './support/events.js';
import { listen } from './support/transport.js';

let store: LookupStore;
let server: Awaited<ReturnType<typeof listen>>;

beforeAll(async () => {
  store = await openEmbeddedStore();
  await store.ingest(baseEvents());
  server = await listen(createLookupHandler({ store, keys: KEYS, maxBodyBytes: 1024 }), {
    bodyTimeoutMs: 300,
  });
});
afterAll(async () => {
  await server?.close();
  await store?.close();
});

interface Answer {
  status: number;
  body: string;
}

/** Starts a POST, lets `write` feed the body (possibly never ending it) and resolves with the answer. */
function post(
  headers: Record<string, string | number>,
  write: (req: ReturnType<typeof httpRequest>) => void,
) {
  return new Promise<Answer & { bodyEnded: boolean }>((resolve, reject) => {
    let bodyEnded = false;
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port: server.port,
        path: '/api/service/lookup',
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers },
      },
      (res: IncomingMessage) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (body += chunk));
        res.on('end', () => {
          resolve({ status: res.statusCode ?? 0, body, bodyEnded });
          req.destroy();
        });
      },
    );
    req.on('error', reject);
    req.on('finish', () => (bodyEnded = true));
    write(req);
  });
}

describe('toNodeListener', () => {
  it('answers a body that keeps streaming past the limit with 413 before it has all been sent', async () => {
    const answer = await post({ 'transfer-encoding': 'chunked' }, (req) => {
      req.write(`{"domain":"acme.com","pad":"${'x'.repeat(2000)}`); // over 1 KiB, and never ended
    });
    expect(answer).toEqual({
      status: 413,
      body: '{"error":"Payload too large"}',
      bodyEnded: false,
    });
  });

  it('refuses a declared Content-Length over the limit without waiting for the body', async () => {
    const answer = await post({ 'content-length': 10_000_000 }, (req) => req.flushHeaders());
    expect(answer).toEqual({
      status: 413,
      body: '{"error":"Payload too large"}',
      bodyEnded: false,
    });
  });

  it('times out a body that never finishes with 408 JSON', async () => {
    const answer = await post({ 'transfer-encoding': 'chunked' }, (req) => req.write('{"domain":'));
    expect(answer).toEqual({ status: 408, body: '{"error":"Request timeout"}', bodyEnded: false });
  });

  it('reads a declared body whether it came with the headers or arrives in pieces after them', async () => {
    const body = '{"domain":"acme.com"}';
    const together = await post({ 'content-length': body.length }, (req) => req.end(body));
    const inPieces = await post({ 'content-length': body.length }, (req) => {
      req.flushHeaders();
      setTimeout(() => req.write(body.slice(0, 5)), 20);
      setTimeout(() => req.end(body.slice(5)), 40);
    });
    for (const answer of [together, inPieces]) {
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body).company.domain).toBe('acme.com');
    }
  });

  it('serves the next request after refusing one', async () => {
    const answer = await post({}, (req) => req.end('{"domain":"acme.com"}'));
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).company.domain).toBe('acme.com');
  });

  it('accepts a body a framework already parsed into req.body', async () => {
    const listener = toNodeListener(createLookupHandler({ store, keys: KEYS }));
    const framework = createServer(async (req, res) => {
      // What express.json() or Fastify do before the route runs: consume and parse the body.
      let raw = '';
      for await (const chunk of req) raw += chunk;
      await listener(Object.assign(req, { body: JSON.parse(raw) }), res);
    });
    await new Promise<void>((resolve) => framework.listen(0, '127.0.0.1', resolve));
    const { port } = framework.address() as AddressInfo;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/service/lookup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ann@acme.com', secretKey: KEY, padding: 'é'.repeat(10) }),
      });
      expect(response.status).toBe(200);
      expect((await response.json()).contacts[0].email).toBe('ann@acme.com');
    } finally {
      framework.close();
    }
  });

  it('routes on the original URL when a router stripped its mount path (Express app.use)', async () => {
    const listener = toNodeListener(createLookupHandler({ store, keys: KEYS }));
    const router = createServer((req, res) => {
      // What Express does for app.use('/api/service', ...): the rest of the path in req.url.
      const originalUrl = req.url ?? '/';
      req.url = originalUrl.slice('/api/service'.length) || '/';
      void listener(Object.assign(req, { originalUrl }), res);
    });
    await new Promise<void>((resolve) => router.listen(0, '127.0.0.1', resolve));
    const { port } = router.address() as AddressInfo;
    try {
      const response = await fetch(`http://127.0.0.1:${port}/api/service/lookup`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}` },
        body: JSON.stringify({ domain: 'acme.com' }),
      });
      expect(response.status).toBe(200);
    } finally {
      router.close();
    }
  });

  it('keeps serving when a client goes away mid-request', async () => {
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port: server.port,
        path: '/api/service/lookup',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('error', () => resolve());
      req.write('{"dom');
      setImmediate(() => {
        req.destroy();
        resolve();
      });
    });
    const answer = await post({}, (req) => req.end('{"domain":"acme.com"}'));
    expect(answer.status).toBe(200);
  });
});
