/**
 * `POST /api/service/lookup` as a Fetch handler: `(Request) => Promise<Response>`, no framework.
 *
 * Order of judgement: route, method, then the key (headers first), then the body. A request
 * without a valid key never learns anything about its body; a request with one gets precise errors.
 */
import { readBody } from './body.js';
import { presentedHeaderKey } from './credentials.js';
import { StoreClosedError, StoreUnavailableError } from './errors.js';
import { type ErrorStatus, errorResponse, HttpError, jsonResponse } from './http.js';
import { createKeyResolver, type KeyEntry, type KeyResolver } from './keys.js';
import { describeFailure, type LookupLog } from './log.js';
import { isStorableText, normalizeDomain, normalizeEmail } from './normalize.js';
import { createRateLimiter } from './rate-limit.js';
import type { LookupQuery, LookupStore } from './types.js';

export interface LookupHandlerOptions {
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
}

/** What the transport knows of the client; `toNodeListener` passes the socket's address. */
export interface LookupClientInfo {
  address?: string | undefined;
}

export type LookupHandler = (request: Request, client?: LookupClientInfo) => Promise<Response>;

const ALLOW = { allow: 'POST, OPTIONS' };
/** Longest accepted inputs: an email address (RFC 5321) and a URL-ish domain. */
const MAX_EMAIL = 320;
const MAX_DOMAIN = 2048;

const isJson = (contentType: string | null) => {
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
  const rawEmail = optionalString(body, 'email', MAX_EMAIL);
  const rawDomain = optionalString(body, 'domain', MAX_DOMAIN);
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
const requestIdOf = (request: Request) => {
  const given = request.headers.get('x-request-id');
  return given !== null && REQUEST_ID.test(given) ? given : crypto.randomUUID();
};

function parseObject(bytes: Uint8Array): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

export function createLookupHandler(options: LookupHandlerOptions): LookupHandler {
  const { store, onError, log } = options;
  const keys: KeyResolver =
    'resolve' in options.keys ? options.keys : createKeyResolver(options.keys);
  const path = (options.path ?? '/api/service/lookup').replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024;

  const limiter =
    options.rateLimit === undefined ? undefined : createRateLimiter(options.rateLimit);
  /** A 429 when `key` has spent its budget (`rateLimit`), with when to come back. */
  const overBudget = (key: string): Response | undefined => {
    const wait = limiter?.take(key) ?? 0;
    return wait > 0 ? errorResponse(429, { 'retry-after': String(wait) }) : undefined;
  };

  const resolve = async (key: unknown) =>
    typeof key === 'string' ? await keys.resolve(key) : null;

  async function lookup(request: Request): Promise<Response> {
    const headerKey = presentedHeaderKey((name) => request.headers.get(name));
    if (headerKey === null) throw new HttpError(401);
    let workspace = headerKey === undefined ? null : await resolve(headerKey);
    // A key in a header is judged alone: a wrong one is refused before the body is read.
    if (headerKey !== undefined && workspace === null) throw new HttpError(401);
    // Over its budget, a header key is refused before its body is read too.
    const limited = headerKey === undefined ? undefined : overBudget(headerKey);
    if (limited) return limited;
    const refuse = (status: ErrorStatus) => new HttpError(workspace === null ? 401 : status);
    if (!isJson(request.headers.get('content-type'))) throw refuse(415);
    const body = parseObject(await readBody(request, maxBodyBytes));
    if (body === null) throw refuse(400);
    if (workspace === null) {
      const bodyKey = own(body, 'secretKey');
      workspace = await resolve(bodyKey);
      if (workspace === null) throw new HttpError(401);
      const bodyLimited = overBudget(bodyKey as string);
      if (bodyLimited) return bodyLimited;
    }
    const result = await store.lookup(toQuery(body, workspace));
    return result === null ? errorResponse(404) : jsonResponse(200, result);
  }

  async function route(
    request: Request,
    requestId: string,
    client: LookupClientInfo | undefined,
  ): Promise<Response> {
    try {
      const pathname = new URL(request.url).pathname.replace(/\/+$/, '');
      if (!pathname.endsWith(path)) return errorResponse(404);
      switch (request.method) {
        case 'POST':
          return await lookup(request);
        case 'OPTIONS':
          return new Response(null, { status: 204, headers: ALLOW });
        case 'HEAD':
          return new Response(null, {
            status: 405,
            headers: { ...ALLOW, 'cache-control': 'no-store' },
          });
        default:
          return errorResponse(405, ALLOW);
      }
    } catch (error) {
      if (error instanceof HttpError) {
        if (error.status === 401) {
          const address = typeof client?.address === 'string' ? client.address : null;
          log?.({ event: 'unauthorized', requestId, address });
        }
        return errorResponse(error.status);
      }
      onError?.(error, { requestId });
      // A closed store (shutting down) is as unavailable as a lost database: try again elsewhere.
      const status =
        error instanceof StoreUnavailableError || error instanceof StoreClosedError ? 503 : 500;
      log?.({ event: 'lookup_failed', requestId, status, ...describeFailure(error) });
      return status === 503 ? errorResponse(503, { 'retry-after': '1' }) : errorResponse(500);
    } finally {
      // Whatever was not read of the body is released, not left to stall the connection.
      if (request.body && !request.bodyUsed) request.body.cancel().catch(() => {});
    }
  }

  return async function handleLookup(request, client) {
    const requestId = requestIdOf(request);
    const response = await route(request, requestId, client);
    response.headers.set('x-request-id', requestId);
    return response;
  };
}
