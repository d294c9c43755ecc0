/**
 * What a load balancer and a scraper ask `serve`, without a key: `GET /healthz` (the process
 * answers), `GET /readyz` (the store can answer: `200`, else `503` with `Retry-After: 1`) and, when
 * a registry is given, `GET /metrics` in the Prometheus text format. A wrapper around a node:http
 * listener, like the OpenAPI route. No answer holds a key, a URL or an error message.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Registry } from 'prom-client';
import type { LookupStore, StoreReadiness } from '../model/types.js';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

export interface OperationsRoutes {
  store: LookupStore;
  /** Served at `/metrics` when given; `/metrics` is the lookup's 404 otherwise. */
  metrics?: Registry;
}

const HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' };

/** A store without a readiness check is ready while it is open: it answered when opened. */
const ASSUMED_READY: StoreReadiness = {
  ready: true,
  store: 'ok',
  migrations: 'current',
  changeFeed: 'none',
};

function send(
  request: IncomingMessage,
  response: ServerResponse,
  status: number,
  headers: Record<string, string>,
  body: string,
): void {
  response.writeHead(status, { ...headers, 'content-length': String(Buffer.byteLength(body)) });
  response.end(request.method === 'HEAD' ? undefined : body);
}

async function readiness(
  request: IncomingMessage,
  response: ServerResponse,
  store: LookupStore,
): Promise<void> {
  const { ready, ...checks } = (await store.readiness?.()) ?? ASSUMED_READY;
  const body = JSON.stringify({ status: ready ? 'ready' : 'not ready', checks });
  if (ready) send(request, response, 200, HEADERS, body);
  else send(request, response, 503, { ...HEADERS, 'retry-after': '1' }, body);
}

async function metrics(
  request: IncomingMessage,
  response: ServerResponse,
  registry: Registry,
): Promise<void> {
  send(request, response, 200, { 'content-type': registry.contentType }, await registry.metrics());
}

/** `listener`, answering GET and HEAD on `/healthz`, `/readyz` and (with `metrics`) `/metrics` first. */
export function withOperationsRoutes(listener: Listener, routes: OperationsRoutes): Listener {
  return (request, response) => {
    const path = (request.url ?? '').split('?', 1)[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') return listener(request, response);
    const failed = () => {
      if (!response.headersSent)
        send(request, response, 500, HEADERS, '{"error":"Internal server error"}');
    };
    if (path === '/healthz') return send(request, response, 200, HEADERS, '{"status":"ok"}');
    if (path === '/readyz') return void readiness(request, response, routes.store).catch(failed);
    if (path === '/metrics' && routes.metrics !== undefined)
      return void metrics(request, response, routes.metrics).catch(failed);
    return listener(request, response);
  };
}
