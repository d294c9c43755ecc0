/**
 * Two ways to reach a handler, so every behaviour row runs through both: a `Request` object
 * handed to the handler, and a real node:http server on loopback reached with fetch. (A third,
 * the client's test double, is in `double-transport.ts`.)
 */
import { type Agent, createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { LookupHandler } from '../../src/index.js';
import { toNodeListener } from '../../src/node.js';

export interface Sent {
  status: number;
  headers: Headers;
  text: string;
  /** The parsed body, `undefined` when empty. */
  body: unknown;
}

export interface RequestSpec {
  method?: string;
  path?: string;
  headers?: Record<string, string>;
  /** A value is sent as JSON; a string is sent as is. */
  body?: unknown;
}

export interface Transport {
  send(spec: RequestSpec): Promise<Sent>;
  close(): Promise<void>;
}

export const LOOKUP_PATH = '/api/service/lookup';

export function init(spec: RequestSpec): RequestInit {
  const body =
    spec.body === undefined
      ? undefined
      : typeof spec.body === 'string'
        ? spec.body
        : JSON.stringify(spec.body);
  const headers: Record<string, string> =
    body === undefined ? {} : { 'content-type': 'application/json' };
  const result: RequestInit = {
    method: spec.method ?? 'POST',
    headers: { ...headers, ...spec.headers },
  };
  if (body !== undefined) result.body = body;
  return result;
}

export async function read(response: Response): Promise<Sent> {
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text === '' ? undefined : JSON.parse(text),
  };
}

export function requestTransport(handler: LookupHandler): Transport {
  return {
    send: async (spec) =>
      read(await handler(new Request(`http://lookup.test${spec.path ?? LOOKUP_PATH}`, init(spec)))),
    close: async () => {},
  };
}

export async function listen(handler: LookupHandler, options?: { bodyTimeoutMs?: number }) {
  const server: Server = createServer(toNodeListener(handler, options));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    server,
    origin: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export async function httpTransport(handler: LookupHandler): Promise<Transport> {
  const running = await listen(handler);
  return {
    send: async (spec) =>
      read(await fetch(`${running.origin}${spec.path ?? LOOKUP_PATH}`, init(spec))),
    close: running.close,
  };
}

/** What `postOn` saw: the status, the body, the `Connection` header and whether the socket was reused. */
export interface PostedOn {
  status: number;
  text: string;
  connection: string | undefined;
  reused: boolean;
}

/** A lookup POST with `key` in a Bearer header on `agent`'s connections (keep-alive tests). */
export function postOn(port: number, agent: Agent, key: string, body: string): Promise<PostedOn> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        agent,
        host: '127.0.0.1',
        port,
        path: LOOKUP_PATH,
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            text,
            connection: res.headers.connection,
            reused: req.reusedSocket,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}
