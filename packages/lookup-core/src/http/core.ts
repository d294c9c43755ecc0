/**
 * The lookup's decision, over plain data: route, method, key, body, query, answer. No transport:
 * the Fetch handler (handler.ts) and the node:http listener (node.ts) are shells that convert
 * their request to a `CoreRequest` once and write the `CoreAnswer` back once.
 *
 * Order of judgement: route, method, then the key (headers first), then the body. A request
 * without a valid key never learns anything about its body; a request with one gets precise errors.
 */

import {
  LOOKUP_PATH,
  MAX_BODY_BYTES,
  MAX_DOMAIN_INPUT_LENGTH,
  MAX_EMAIL_LENGTH,
} from '@service/lookup-contract';
import type { Registry } from 'prom-client';
import { StoreClosedError, StoreUnavailableError } from '../model/errors.js';
import { isStorableText, normalizeDomain, normalizeEmail } from '../model/normalize.js';
import type { LookupQuery, LookupStore } from '../model/types.js';
import { connectionKeyResolver } from './connection-keys.js';
import { presentedHeaderKey } from './credentials.js';
import { type ErrorStatus, errorBody, HttpError, JSON_HEADERS } from './http.js';
import type { KeyEntry, KeyResolver } from './keys.js';
import { describeFailure, type LookupLog } from './log.js';
import { registerLookupMetrics } from './metrics.js';
import { createRateLimiter } from './rate-limit.js';

/** Options of `createLookupHandler` and `toNodeListener`: the store, the keys, and the limits. */
export interface LookupHandlerOptions {
  /** Where the answers come from: `openEmbeddedStore()` or `openPostgresStore(...)`. */
  store: LookupStore;
  /** Who may look up what: a resolver, or key entries (`{ key, workspace }`) to build one from. */
  keys: KeyResolver | Iterable<KeyEntry>;
  /** The path the lookup answers on: any path ending with it (default `/api/service/lookup`). */
  path?: string;
  /** Largest accepted request body in bytes (default 16 KiB); larger ones get 413. */
  maxBodyBytes?: number;
  /** Called with every unexpected error (the client gets a bare 500/503, never the error). */
  onError?: (error: unknown, context: { requestId: string }) => void;
  /**
   * Receives what an operator should see: every 500/503 (`lookup_failed`, with the error's class,
   * message and SQLSTATE) and every 401 (`unauthorized`, with the client's address). Never a key.
   * `createJsonLineLog` writes them as JSON lines, 401s counted per address and minute.
   */
  log?: LookupLog;
  /**
   * Lookups per second allowed to each key (a burst of as many at once); more get 429 with
   * `Retry-After`. Unlimited when absent. Buckets are kept for at most 10,000 keys.
   */
  rateLimit?: number;
  /**
   * A `prom-client` registry to record the lookup's metrics in (requests by status, latency, the
   * store's cache, change feed, pool and ingest counts); none are kept without it.
   */
  metrics?: Registry;
}

/** A request as the core needs it, whatever carried it. */
export interface CoreRequest {
  /** The HTTP method, upper case. */
  method: string;
  /** The URL's path, without query or fragment. */
  path: string;
  /** A header's value (several of one name joined with `, `, as Fetch's `Headers.get` does). */
  header(name: string): string | undefined;
  /**
   * The body's bytes, read at most once and only after the key in a header was accepted; rejects
   * with `HttpError` 413 past `limit`, 408 when too slow, 400 when the transport failed. A body
   * that has already arrived may be given at once, without a Promise.
   */
  body(limit: number): Uint8Array | Promise<Uint8Array>;
  /** The client's address, when the transport knows it (for the log of refused keys). */
  address?: string | undefined;
  /**
   * The transport's connection (node's socket), when it has one: a key accepted on it is
   * remembered for it, so the next requests of a keep-alive client skip the key's digest.
   */
  connection?: object | undefined;
}

/** What to send back: status, headers (`x-request-id` included), and the body text or none. */
export interface CoreAnswer {
  /** The HTTP status. */
  status: number;
  /** A new object for each answer, so a shell may complete it (e.g. `content-length`). */
  headers: Record<string, string>;
  /** JSON text, or its UTF-8 bytes (a kept answer, sent without encoding it again). */
  body: string | Uint8Array | null;
}

/** The lookup's decision for one request, with no transport: what both adapters call. */
export type LookupCore = (request: CoreRequest) => Promise<CoreAnswer>;

const ALLOW = 'POST, OPTIONS';

const isJson = (contentType: string | undefined) => {
  if (contentType === 'application/json') return true;
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
};

const own = (body: Record<string, unknown>, field: string): unknown =>
  Object.hasOwn(body, field) ? body[field] : undefined;

/** An optional string field: absent, null and blank mean "not given". */
function optionalString(
  body: Record<string, unknown>,
  field: string,
  max: number,
): string | undefined {
  const value = own(body, field);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max || !isStorableText(value))
    throw new HttpError(400);
  return value.trim() === '' ? undefined : value;
}

/** The lookup a valid body asks for, or a 400. Email wins over domain. */
function toQuery(body: Record<string, unknown>, workspace: string): LookupQuery {
  const rawEmail = optionalString(body, 'email', MAX_EMAIL_LENGTH);
  const rawDomain = optionalString(body, 'domain', MAX_DOMAIN_INPUT_LENGTH);
  const includeActivity = own(body, 'includeActivity') ?? false;
  if (typeof includeActivity !== 'boolean') throw new HttpError(400);
  if (rawEmail !== undefined) {
    const email = normalizeEmail(rawEmail);
    if (email === null) throw new HttpError(400);
    return { workspace, email, includeActivity };
  }
  if (rawDomain !== undefined) {
    const domain = normalizeDomain(rawDomain);
    if (domain === null) throw new HttpError(400);
    return { workspace, domain, includeActivity };
  }
  throw new HttpError(400);
}

/** A caller's own `x-request-id` is kept when it is a sane token, so logs on both sides agree. */
const REQUEST_ID = /^[\w.:-]{1,128}$/;
const requestIdOf = (request: CoreRequest) => {
  const given = request.header('x-request-id');
  return given !== undefined && REQUEST_ID.test(given) ? given : crypto.randomUUID();
};

const UTF8 = new TextDecoder('utf-8', { fatal: true });

function parseObject(bytes: Uint8Array): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(UTF8.decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

const answer = (
  status: number,
  body: string | Uint8Array | null,
  headers: Record<string, string>,
) => ({
  status,
  headers,
  body,
});
const json = (
  status: number,
  body: string | Uint8Array,
  requestId: string,
  extra?: Record<string, string>,
) => answer(status, body, { ...JSON_HEADERS, ...extra, 'x-request-id': requestId });
const error = (status: ErrorStatus, requestId: string, extra?: Record<string, string>) =>
  json(status, errorBody(status), requestId, extra);

/** The transport-neutral lookup: `CoreRequest` in, `CoreAnswer` out; it never throws. */
export function createLookupCore(options: LookupHandlerOptions): LookupCore {
  const { store, onError, log } = options;
  const resolveKey = connectionKeyResolver(options.keys);
  const path = (options.path ?? LOOKUP_PATH).replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  /** Any path ending with `path`, trailing slashes aside (tested without a regex when it can be). */
  const routed = (requestPath: string) =>
    requestPath.endsWith(path) || requestPath.replace(/\/+$/, '').endsWith(path);
  // The store's answer as JSON text when it can give it (the SQL store renders it), so the bytes
  // are sent as they come; any other store's answer object is serialised here.
  const lookupText =
    store.lookupText?.bind(store) ??
    (async (query: LookupQuery) => {
      const result = await store.lookup(query);
      return result === null ? null : JSON.stringify(result);
    });

  const limiter =
    options.rateLimit === undefined ? undefined : createRateLimiter(options.rateLimit);
  /** A 429 when `key` has spent its budget (`rateLimit`), with when to come back. */
  const overBudget = (key: string, requestId: string): CoreAnswer | undefined => {
    const wait = limiter?.take(key) ?? 0;
    return wait > 0 ? error(429, requestId, { 'retry-after': String(wait) }) : undefined;
  };

  async function lookup(request: CoreRequest, requestId: string): Promise<CoreAnswer> {
    const headerKey = presentedHeaderKey(request.header);
    if (headerKey === null) throw new HttpError(401);
    // Awaited even when the resolver answers at once: that microtask lets node push a body that
    // came in the headers' packet before `request.body` is asked, which the node shell then takes
    // from the buffer with no listener or timer (without it, every request took the slower path).
    let workspace =
      headerKey === undefined ? null : await resolveKey(headerKey, request.connection);
    // A key in a header is judged alone: a wrong one is refused before the body is read.
    if (headerKey !== undefined && workspace === null) throw new HttpError(401);
    // Over its budget, a header key is refused before its body is read too.
    const limited = headerKey === undefined ? undefined : overBudget(headerKey, requestId);
    if (limited) return limited;
    const refuse = (status: ErrorStatus) => new HttpError(workspace === null ? 401 : status);
    if (!isJson(request.header('content-type'))) throw refuse(415);
    const declared = request.header('content-length');
    if (declared !== undefined && Number(declared) > maxBodyBytes) throw new HttpError(413);
    const bytes = request.body(maxBodyBytes);
    const body = parseObject(bytes instanceof Uint8Array ? bytes : await bytes);
    if (body === null) throw refuse(400);
    if (workspace === null) {
      const bodyKey = own(body, 'secretKey');
      workspace =
        typeof bodyKey === 'string' ? await resolveKey(bodyKey, request.connection) : null;
      if (workspace === null) throw new HttpError(401);
      const bodyLimited = overBudget(bodyKey as string, requestId);
      if (bodyLimited) return bodyLimited;
    }
    const text = await lookupText(toQuery(body, workspace));
    return text === null ? error(404, requestId) : json(200, text, requestId);
  }

  const decide: LookupCore = async (request) => {
    const requestId = requestIdOf(request);
    try {
      if (!routed(request.path)) return error(404, requestId);
      switch (request.method) {
        case 'POST':
          return await lookup(request, requestId);
        case 'OPTIONS':
          return answer(204, null, { allow: ALLOW, 'x-request-id': requestId });
        case 'HEAD':
          return answer(405, null, {
            allow: ALLOW,
            'cache-control': 'no-store',
            'x-request-id': requestId,
          });
        default:
          return error(405, requestId, { allow: ALLOW });
      }
    } catch (thrown) {
      if (thrown instanceof HttpError) {
        if (thrown.status === 401) {
          const address = typeof request.address === 'string' ? request.address : null;
          log?.({ event: 'unauthorized', requestId, address });
        }
        return error(thrown.status, requestId);
      }
      onError?.(thrown, { requestId });
      // A closed store (shutting down) is as unavailable as a lost database: try again elsewhere.
      const status =
        thrown instanceof StoreUnavailableError || thrown instanceof StoreClosedError ? 503 : 500;
      log?.({ event: 'lookup_failed', requestId, status, ...describeFailure(thrown) });
      return status === 503 ? error(503, requestId, { 'retry-after': '1' }) : error(500, requestId);
    }
  };
  if (options.metrics === undefined) return decide;
  const metrics = registerLookupMetrics(options.metrics, store);
  return async (request) => {
    const started = performance.now();
    const answered = await decide(request);
    metrics.observe(answered.status, (performance.now() - started) / 1000);
    return answered;
  };
}
