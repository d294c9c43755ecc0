/**
 * Node adapters: the Fetch handler as a `node:http` / Express / Fastify-raw listener, and NDJSON
 * files as input for `store.ingest`. No framework is a dependency.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTimeoutError } from './body.js';
import { errorResponse } from './http.js';
import { type NdjsonOptions, readNdjson, type UnreadableLine } from './ndjson.js';

export {
  DEFAULT_MAX_LINE_BYTES,
  type NdjsonOptions,
  readNdjson,
  UnreadableLine,
} from './ndjson.js';

export interface NodeListenerOptions {
  /** How long a request body may take to arrive, in ms (default 10 000); then 408. */
  bodyTimeoutMs?: number;
}

/** Express and Fastify add `body` (already parsed); Express also keeps `originalUrl`. */
type NodeRequest = IncomingMessage & { body?: unknown; originalUrl?: string };
export type NodeListener = (req: NodeRequest, res: ServerResponse) => Promise<void>;

const NO_BODY = new Set(['GET', 'HEAD']);

function toHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) headers.append(name, v);
  }
  return headers;
}

/** The raw body as a stream that errors with `BodyTimeoutError` when it is too slow. */
function streamBody(req: IncomingMessage, timeoutMs: number): ReadableStream<Uint8Array> {
  let finished = false;
  let timer: NodeJS.Timeout | undefined;
  const finish = () => {
    finished = true;
    clearTimeout(timer);
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      timer = setTimeout(() => {
        if (finished) return;
        finish();
        controller.error(new BodyTimeoutError());
        req.pause();
      }, timeoutMs);
      req.on('data', (chunk: Buffer) => {
        if (finished) return;
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) req.pause();
      });
      req.on('end', () => {
        if (finished) return;
        finish();
        controller.close();
      });
      req.on('error', (error) => {
        if (finished) return;
        finish();
        controller.error(error);
      });
    },
    pull() {
      req.resume();
    },
    cancel() {
      finish();
      req.pause();
    },
  });
}

/** A body Express/Fastify already parsed, re-encoded for the handler. */
function parsedBody(body: unknown): BodyInit {
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return new Uint8Array(body);
  return JSON.stringify(body);
}

function toRequest(req: NodeRequest, signal: AbortSignal, timeoutMs: number): Request {
  const method = req.method ?? 'GET';
  const headers = toHeaders(req);
  // Express's `app.use(mountPath, ...)` strips the mount path from `req.url`; the handler
  // routes on the full path, so the original one is used where a framework kept it.
  const path = req.originalUrl ?? req.url ?? '/';
  let url: URL;
  try {
    url = new URL(path, `http://${req.headers.host ?? 'localhost'}`);
  } catch {
    url = new URL(path, 'http://localhost');
  }
  let body: BodyInit | null = null;
  if (!NO_BODY.has(method)) {
    if (req.body !== undefined) {
      headers.delete('content-length'); // it described the raw body, not this one
      body = parsedBody(req.body);
    } else {
      body = streamBody(req, timeoutMs);
    }
  }
  return new Request(url, { method, headers, body, signal, duplex: 'half' } as RequestInit);
}

async function send(res: ServerResponse, response: Response, req: NodeRequest): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.appendHeader(name, value);
  const body =
    req.method === 'HEAD' || response.body === null
      ? null
      : Buffer.from(await response.arrayBuffer());
  // A body left unread (too large, too slow, or not declared small) is not drained: the connection
  // is closed instead. A small declared one (e.g. after a 401) is drained, so keep-alive clients
  // can send their next request on the same connection.
  const unread = !req.complete && req.body === undefined;
  const close = unread && !drainable(req, response.status);
  if (close) res.setHeader('connection', 'close');
  else if (unread) req.resume();
  res.end(body ?? undefined, () => {
    if (close) req.socket.destroy();
  });
}

/** Largest unread body drained to keep a connection alive; larger ones close it. */
const MAX_DRAIN_BYTES = 64 * 1024;

function drainable(req: NodeRequest, status: number): boolean {
  if (status === 413 || status === 408) return false;
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  return declared <= MAX_DRAIN_BYTES;
}

/** Adapts a Fetch handler to `(req, res)` for node:http, Express, Fastify (raw) and the like. */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
  options: NodeListenerOptions = {},
): NodeListener {
  const timeoutMs = options.bodyTimeoutMs ?? 10_000;
  return async (req, res) => {
    const aborted = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) aborted.abort();
    });
    let response: Response;
    try {
      response = await handler(toRequest(req, aborted.signal, timeoutMs));
    } catch {
      response = errorResponse(500);
    }
    if (res.headersSent || res.destroyed) return;
    await send(res, response, req);
  };
}

/**
 * The lines of an NDJSON file, blank ones included, so `ingest` reports true line numbers; a line
 * that is not UTF-8 or is too long comes as an `UnreadableLine`, which `ingest` rejects (ndjson.ts).
 */
export function readNdjsonLines(
  file: string,
  options?: NdjsonOptions,
): AsyncIterable<string | UnreadableLine> {
  return readNdjson(file, options);
}
