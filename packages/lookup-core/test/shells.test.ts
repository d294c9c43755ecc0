// The two shells over the one core: the node listener builds no Fetch object on its path, takes
// the handler's options or any handler (one with a core from any copy of the package, any other
// through one Fetch Request), and answers what the Fetch handler answers.
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createLookupHandler, type LookupStore, openEmbeddedStore } from '../src/index.js';
import { toNodeListener } from '../src/node.js';
import { baseEvents, KEY, KEYS } from './support/events.js';
import { listen } from './support/transport.js';

let store: LookupStore;
beforeAll(async () => {
  store = await openEmbeddedStore({ cache: {} });
  await store.ingest(baseEvents());
});
afterAll(() => store?.close());

/** POSTs with node:http (fetch would build Requests of its own in this process). */
function post(port: number, body: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; text: string; headers: Record<string, unknown> }>(
    (resolve, reject) => {
      const req = httpRequest(
        {
          host: '127.0.0.1',
          port,
          path: '/api/service/lookup',
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
        },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text, headers: res.headers }));
        },
      );
      req.on('error', reject);
      req.end(body);
    },
  );
}

describe('the node listener', () => {
  it('builds no Request, Response or ReadableStream while answering', async () => {
    const server = await listen(createLookupHandler({ store, keys: KEYS }));
    const built = { Request: 0, Response: 0, ReadableStream: 0 };
    const originals = {
      Request: globalThis.Request,
      Response: globalThis.Response,
      ReadableStream: globalThis.ReadableStream,
    };
    globalThis.Request = class extends originals.Request {
      constructor(...args: ConstructorParameters<typeof Request>) {
        super(...args);
        built.Request++;
      }
    };
    globalThis.Response = class extends originals.Response {
      constructor(...args: ConstructorParameters<typeof Response>) {
        super(...args);
        built.Response++;
      }
    };
    const Stream = originals.ReadableStream as unknown as new (...args: unknown[]) => object;
    globalThis.ReadableStream = class extends Stream {
      constructor(...args: unknown[]) {
        super(...args);
        built.ReadableStream++;
      }
    } as unknown as typeof ReadableStream;
    try {
      const answers = [
        await post(server.port, '{"domain":"acme.com","includeActivity":true}', {
          authorization: `Bearer ${KEY}`,
        }),
        await post(server.port, `{"email":"ann@acme.com","secretKey":"${KEY}"}`),
        await post(server.port, '{"domain":"nobody.example"}', { authorization: `Bearer ${KEY}` }),
        await post(server.port, '{"domain":', { authorization: `Bearer ${KEY}` }),
      ];
      expect(answers.map((a) => a.status)).toEqual([200, 200, 404, 400]);
    } finally {
      Object.assign(globalThis, originals);
      await server.close();
    }
    expect(built).toEqual({ Request: 0, Response: 0, ReadableStream: 0 });
  });

  it('answers byte for byte what the Fetch handler answers', async () => {
    const handler = createLookupHandler({ store, keys: KEYS });
    const server = await listen(handler);
    try {
      for (const body of [
        '{"domain":"acme.com","includeActivity":true}',
        '{"email":"Ann@Acme.com"}',
        '{"domain":"initech.io"}',
        '{"domain":"nobody.example"}',
        '{}',
      ]) {
        const headers = { authorization: `Bearer ${KEY}`, 'x-request-id': 'same-id' };
        const viaNode = await post(server.port, body, headers);
        const viaFetch = await handler(
          new Request('http://lookup.test/api/service/lookup', {
            method: 'POST',
            headers: { ...headers, 'content-type': 'application/json' },
            body,
          }),
        );
        expect(viaNode.status).toBe(viaFetch.status);
        expect(viaNode.text).toBe(await viaFetch.text());
        expect(viaNode.headers['content-type']).toBe(viaFetch.headers.get('content-type'));
        expect(viaNode.headers['x-request-id']).toBe('same-id');
      }
    } finally {
      await server.close();
    }
  });

  it('takes a handler made by another copy of the package, as the ES module and CommonJS builds are', async () => {
    vi.resetModules();
    const otherCopy = await import('../src/node.js');
    expect(otherCopy.toNodeListener).not.toBe(toNodeListener);
    const server = createServer(
      otherCopy.toNodeListener(createLookupHandler({ store, keys: KEYS })),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      const answer = await post(port, '{"domain":"acme.com"}', { authorization: `Bearer ${KEY}` });
      expect(answer.status).toBe(200);
    } finally {
      server.close();
    }
  });

  /** A listener on a free loopback port, answering one POST; the server is closed after. */
  async function postTo(listener: ReturnType<typeof toNodeListener>, body: string) {
    const server = createServer(listener);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = server.address() as AddressInfo;
      return await post(port, body, { authorization: `Bearer ${KEY}` });
    } finally {
      server.close();
    }
  }

  it('takes the options of a handler and answers as the handler made from them', async () => {
    const answer = await postTo(toNodeListener({ store, keys: KEYS }), '{"domain":"acme.com"}');
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).company.domain).toBe('acme.com');
  });

  it('runs a handler without a core (a wrapper) through a Fetch Request, body and headers included', async () => {
    const handler = createLookupHandler({ store, keys: KEYS });
    const seen: string[] = [];
    const wrapper = async (request: Request) => {
      seen.push(`${request.method} ${new URL(request.url).pathname}`);
      return handler(request);
    };
    const answer = await postTo(toNodeListener(wrapper), '{"domain":"acme.com"}');
    expect(seen).toEqual(['POST /api/service/lookup']);
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.text).company.domain).toBe('acme.com');
  });
});
