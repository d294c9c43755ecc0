/**
 * The lookup as a `node:http` / Express / Fastify-raw listener. It calls the handler's core
 * directly (core.ts): it builds no Fetch `Request`, `Response` or web stream, reads headers where
 * node keeps them, collects the body as Buffers and answers with one `writeHead` and one `end`. No
 * framework is a dependency.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { BodyTimeoutError } from './body.js';
import {
  type CoreAnswer,
  type CoreRequest,
  createLookupCore,
  type LookupHandlerOptions,
} from './core.js';
import type { LookupHandler } from './handler.js';
import { errorBody, HttpError, JSON_HEADERS } from './http.js';

/** Options of `toNodeListener`. */
export interface NodeListenerOptions {
  /** How long a request body may take to arrive, in ms (default 10 000); then 408. */
  bodyTimeoutMs?: number;
}

/**
 * The request a `NodeListener` takes: node's `IncomingMessage`, with what Express and Fastify add
 * (`body`, already parsed; Express's `originalUrl`).
 */
export type NodeRequest = IncomingMessage & {
  /** The body a framework already parsed, used instead of reading the stream. */
  body?: unknown;
  /** Express: the URL before its mount path was removed, routed on when present. */
  originalUrl?: string;
};
/** The lookup as a `(req, res)` listener for `node:http`, Express, Fastify (raw) and the like. */
export type NodeListener = (req: NodeRequest, res: ServerResponse) => Promise<void>;

const NO_BODY = new Set(['GET', 'HEAD']);

/**
 * A header as Fetch's `Headers.get` gives it: every field of that name, joined with `, `. Read from
 * `rawHeaders`, since `req.headers` keeps only the first `Authorization` or `Content-Type`.
 */
function headerOf(req: IncomingMessage, name: string): string | undefined {
  const raw = req.rawHeaders;
  let value: string | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const field = raw[i] as string;
    if (field !== name && (field.length !== name.length || field.toLowerCase() !== name)) continue;
    value = value === undefined ? raw[i + 1] : `${value}, ${raw[i + 1]}`;
  }
  return value;
}

/** A path that a URL parser would leave as it is: no dot segments, escapes or odd characters. */
const PLAIN_PATH = /^\/[\w~/-]*$/;

/**
 * The request's path. Express's `app.use(mountPath, ...)` strips the mount path from `req.url`; the
 * lookup routes on the full path, so the original one is used where a framework kept it.
 */
function pathOf(req: NodeRequest): string {
  const target = req.originalUrl ?? req.url ?? '/';
  const end = target.search(/[?#]/);
  const path = end === -1 ? target : target.slice(0, end);
  if (PLAIN_PATH.test(path)) return path;
  try {
    return new URL(target, 'http://localhost').pathname;
  } catch {
    return '/';
  }
}

/** A body Express/Fastify already parsed, re-encoded for the core. */
function parsedBody(body: unknown, limit: number): Uint8Array {
  const bytes =
    body instanceof Uint8Array
      ? body
      : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
  if (bytes.byteLength > limit) throw new HttpError(413);
  return bytes;
}

/** The raw body, collected as Buffers: 413 past `limit`, 408 after `timeoutMs`, 400 on a broken stream. */
function collectBody(req: IncomingMessage, limit: number, timeoutMs: number): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const stop = (error?: HttpError) => {
      clearTimeout(timer);
      req.off('data', onData).off('end', onEnd).off('error', onBroken).off('close', onClose);
      if (error === undefined) return;
      req.pause();
      reject(error);
    };
    const timer = setTimeout(() => stop(new HttpError(408)), timeoutMs);
    const onData = (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > limit) stop(new HttpError(413));
      else chunks.push(chunk);
    };
    const onEnd = () => {
      stop();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size));
    };
    const onBroken = () => stop(new HttpError(400));
    const onClose = () => {
      if (!req.complete) onBroken();
    };
    req.on('data', onData).on('end', onEnd).on('error', onBroken).on('close', onClose);
  });
}

/**
 * The body when all its declared bytes have arrived: a small one usually comes in the packet that
 * carried the headers and waits in the stream's buffer, so it is taken at once, with no listener
 * or timer. `undefined` when some is still to come (or no length was declared): then it is
 * collected as it streams in.
 */
function arrivedBody(req: IncomingMessage, limit: number): Buffer | undefined {
  const waiting = req.readableLength;
  if (waiting === 0 || req.readableFlowing === true) return undefined;
  if (waiting !== Number(headerOf(req, 'content-length'))) return undefined;
  if (waiting > limit) throw new HttpError(413);
  return req.read() as Buffer;
}

/** A node request as the core reads it; `bodyRead` once its whole body was taken. */
interface NodeCoreRequest extends CoreRequest {
  bodyRead: boolean;
}

function toCoreRequest(req: NodeRequest, timeoutMs: number): NodeCoreRequest {
  const method = req.method ?? 'GET';
  const parsed = req.body !== undefined;
  const request: NodeCoreRequest = {
    address: req.socket.remoteAddress,
    connection: req.socket,
    method,
    path: pathOf(req),
    // A pre-parsed body's Content-Length described the raw body, not the one handed on.
    header: (name) => (parsed && name === 'content-length' ? undefined : headerOf(req, name)),
    body: (limit) => {
      if (NO_BODY.has(method)) return new Uint8Array(0);
      if (parsed) return parsedBody(req.body, limit);
      const arrived = arrivedBody(req, limit);
      if (arrived === undefined) return collectBody(req, limit, timeoutMs);
      request.bodyRead = true;
      return arrived;
    },
    bodyRead: false,
  };
  return request;
}

/** Writes `answer`; `bodyRead` when the shell took the whole body from the stream's buffer. */
function send(res: ServerResponse, answer: CoreAnswer, req: NodeRequest, bodyRead: boolean): void {
  const body = req.method === 'HEAD' || answer.body === null ? undefined : answer.body;
  // The core builds each answer's headers anew, so they are completed in place.
  const { headers } = answer;
  if (body !== undefined)
    headers['content-length'] = String(
      typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength,
    );
  // A body left unread (too large, too slow, or not declared small) is not drained: the connection
  // is closed instead. A small declared one (e.g. after a 401) is drained, so keep-alive clients
  // can send their next request on the same connection.
  const unread = !req.complete && !bodyRead && req.body === undefined;
  const close = unread && !drainable(req, answer.status);
  if (close) headers.connection = 'close';
  else if (unread) req.resume();
  res.writeHead(answer.status, headers);
  if (close) res.end(body, () => req.socket.destroy());
  else res.end(body);
}

/** Largest unread body drained to keep a connection alive; larger ones close it. */
const MAX_DRAIN_BYTES = 64 * 1024;

function drainable(req: NodeRequest, status: number): boolean {
  if (status === 413 || status === 408) return false;
  const declared = Number(req.headers['content-length'] ?? Number.NaN);
  return declared <= MAX_DRAIN_BYTES;
}

const internalError = (): CoreAnswer => ({
  status: 500,
  headers: { ...JSON_HEADERS },
  body: errorBody(500),
});

/**
 * The raw body as a web stream for a Fetch handler, errored with `BodyTimeoutError` (which the
 * handler answers 408) when it has not all arrived after `timeoutMs`.
 */
function bodyStream(req: IncomingMessage, timeoutMs: number): ReadableStream<Uint8Array> {
  let stop = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const onData = (chunk: Buffer) => controller.enqueue(new Uint8Array(chunk));
      const finish = (end: () => void) => () => {
        stop();
        end();
      };
      const onEnd = finish(() => controller.close());
      const onError = finish(() => controller.error(new Error('The request body was cut off')));
      const timer = setTimeout(
        finish(() => controller.error(new BodyTimeoutError())),
        timeoutMs,
      );
      stop = () => {
        clearTimeout(timer);
        req.off('data', onData).off('end', onEnd).off('error', onError).pause();
      };
      req.on('data', onData).on('end', onEnd).on('error', onError);
    },
    cancel: () => stop(),
  });
}

/**
 * The answer of a Fetch handler that has no core (a wrapper, a handler of your own): the node
 * request as one Fetch `Request`, the `Response` read back as bytes.
 */
async function answerOfFetch(
  handler: LookupHandler,
  req: NodeRequest,
  timeoutMs: number,
): Promise<CoreAnswer> {
  const method = req.method ?? 'GET';
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2)
    headers.append(req.rawHeaders[i] as string, req.rawHeaders[i + 1] as string);
  const parsed = req.body !== undefined;
  // A pre-parsed body's Content-Length described the raw body, not the one handed on.
  if (parsed) headers.delete('content-length');
  const body = NO_BODY.has(method)
    ? null
    : parsed
      ? parsedBody(req.body, Number.POSITIVE_INFINITY)
      : bodyStream(req, timeoutMs);
  const init = { method, headers, body, duplex: 'half' } as RequestInit;
  const response = await handler(new Request(`http://localhost${pathOf(req)}`, init), {
    address: req.socket.remoteAddress,
  });
  const bytes = response.body === null ? null : new Uint8Array(await response.arrayBuffer());
  return { status: response.status, headers: Object.fromEntries(response.headers), body: bytes };
}

/**
 * The lookup as `(req, res)` for node:http, Express, Fastify (raw) and the like, from the handler's
 * options or from a handler. A handler with a `core` (one made by `createLookupHandler`, from
 * either build) has its core run directly; any other runs through one Fetch `Request`.
 */
export function toNodeListener(
  lookup: LookupHandler | LookupHandlerOptions,
  options: NodeListenerOptions = {},
): NodeListener {
  const core = typeof lookup === 'function' ? lookup.core : createLookupCore(lookup);
  const timeoutMs = options.bodyTimeoutMs ?? 10_000;
  return async (req, res) => {
    let request: NodeCoreRequest | undefined;
    let answer: CoreAnswer;
    try {
      if (core === undefined) {
        answer = await answerOfFetch(lookup as LookupHandler, req, timeoutMs);
      } else {
        request = toCoreRequest(req, timeoutMs);
        answer = await core(request);
      }
    } catch {
      answer = internalError();
    }
    if (res.headersSent || res.destroyed) return;
    send(res, answer, req, request?.bodyRead === true);
  };
}
