/**
 * The lookup server's rules over fixture data, as a Fetch function `(Request) => Response`: the
 * same routes, key transports, status rules (400/401/404/405/413/415) and answer shapes as
 * lookup-core's handler. lookup-core runs its conformance table against this too, so the two
 * cannot drift apart.
 */
import {
  ERROR_MESSAGES,
  isStorableText,
  isWellFormedKey,
  LOOKUP_PATH,
  MAX_BODY_BYTES,
  MAX_DOMAIN_INPUT_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_ENTRIES,
  normalizeDomain,
  normalizeEmail,
  presentedHeaderKey,
  schemas,
} from '@service/lookup-contract';
import { describeIssue } from './errors.js';
import type { ContactWithActivity, LookupResponseWithActivity } from './types.js';

/** One workspace of the test double: the keys that read it and what it has observed. */
export interface LookupWorkspace {
  /**
   * Keys that read this workspace, each well formed as on the server: `sk_live_` then 24 to 504
   * RFC 6750 token68 characters (letters, digits, `-._~+/`, then any `=` padding).
   */
  readonly secretKeys: readonly string[];
  /**
   * What the service has observed: each company with all its contacts and their activity. The
   * double orders and trims them as the server does (10 contacts, 10 sessions, most recent first).
   */
  readonly companies: readonly LookupResponseWithActivity[];
}

/** The test double's data and limits (see `lookupHandlers` in `@service/lookup-client/testing`). */
export interface LookupDoubleOptions {
  /** One entry per workspace; a key sees its own workspace only. */
  readonly workspaces: readonly LookupWorkspace[];
  /** The path the lookup answers on: any path ending with it (default `/api/service/lookup`). */
  readonly path?: string | undefined;
  /** Largest request body accepted, in bytes (default 16 KiB, as the server); larger gets 413. */
  readonly maxBodyBytes?: number | undefined;
}

/** The statuses the double answers with; the server may also answer 408, 429, 500 and 503. */
type Refusal = 400 | 401 | 404 | 405 | 413 | 415;

const ALLOW = { allow: 'POST, OPTIONS' };
const NO_STORE = { 'cache-control': 'no-store' };
const REQUEST_ID = /^[\w.:-]{1,128}$/;

/** Thrown inside the double to answer with a status; never leaves it. */
class Refused {
  constructor(readonly status: Refusal) {}
}

export function createLookupDouble(options: LookupDoubleOptions) {
  const workspaces = options.workspaces.map(checkedWorkspace);
  const path = (options.path ?? LOOKUP_PATH).replace(/\/+$/, '');
  const maxBodyBytes = options.maxBodyBytes ?? MAX_BODY_BYTES;
  const workspaceOf = (key: unknown) =>
    typeof key === 'string' ? workspaces.find((w) => w.secretKeys.includes(key)) : undefined;

  async function lookup(request: Request): Promise<Response> {
    const headerKey = presentedHeaderKey((name) => request.headers.get(name));
    let workspace = headerKey === undefined ? undefined : workspaceOf(headerKey);
    // A key in a header is judged alone, before anything of the body.
    if (headerKey !== undefined && workspace === undefined) throw new Refused(401);
    const refuse = (status: Refusal) => new Refused(workspace === undefined ? 401 : status);
    if (!isJsonType(request.headers.get('content-type'))) throw refuse(415);
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > maxBodyBytes) throw new Refused(413);
    const body = jsonObject(bytes);
    if (body === undefined) throw refuse(400);
    workspace ??= workspaceOf(own(body, 'secretKey'));
    if (workspace === undefined) throw new Refused(401);
    const found = find(workspace, body);
    return found === undefined ? refusal(404) : json(200, found);
  }

  async function route(request: Request): Promise<Response> {
    try {
      const pathname = new URL(request.url).pathname.replace(/\/+$/, '');
      if (!pathname.endsWith(path)) return refusal(404);
      if (request.method === 'POST') return await lookup(request);
      if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: ALLOW });
      if (request.method === 'HEAD') {
        return new Response(null, { status: 405, headers: { ...ALLOW, ...NO_STORE } });
      }
      return refusal(405, ALLOW);
    } catch (error) {
      if (error instanceof Refused) return refusal(error.status);
      throw error;
    }
  }

  return async (request: Request): Promise<Response> => {
    const given = request.headers.get('x-request-id');
    const response = await route(request);
    response.headers.set(
      'x-request-id',
      given !== null && REQUEST_ID.test(given) ? given : crypto.randomUUID(),
    );
    return response;
  };
}

function checkedWorkspace(workspace: LookupWorkspace, index: number): LookupWorkspace {
  if (!workspace.secretKeys.every(isWellFormedKey)) {
    throw new TypeError(
      `workspaces[${index}]: every secret key must be sk_live_ then 24 to 504 letters, digits or -._~+/, ending in any = padding`,
    );
  }
  workspace.companies.forEach((observed, at) => {
    const result = schemas.lookupResponseWithActivitySchema.safeParse(observed);
    const issue = result.error?.issues[0];
    if (issue) throw new TypeError(`workspaces[${index}].companies[${at}].${describeIssue(issue)}`);
  });
  return workspace;
}

/** The answer to a valid body in `workspace`, `undefined` for 404; a body that is not valid: 400. */
function find(workspace: LookupWorkspace, body: Record<string, unknown>) {
  const email = optionalString(body, 'email', MAX_EMAIL_LENGTH);
  const domain = optionalString(body, 'domain', MAX_DOMAIN_INPUT_LENGTH);
  const includeActivity = own(body, 'includeActivity') ?? false;
  if (typeof includeActivity !== 'boolean') throw new Refused(400);
  const shown = (observed: LookupResponseWithActivity, contacts: ContactWithActivity[]) => ({
    company: observed.company,
    contacts: contacts.map((contact) => shownContact(contact, includeActivity)),
  });
  if (email !== undefined) {
    const wanted = normalizeEmail(email);
    if (wanted === null) throw new Refused(400);
    for (const observed of workspace.companies) {
      const contact = observed.contacts.find((c) => normalizeEmail(c.email) === wanted);
      if (contact) return shown(observed, [contact]);
    }
    return undefined;
  }
  if (domain === undefined) throw new Refused(400);
  const wanted = normalizeDomain(domain);
  if (wanted === null) throw new Refused(400);
  const observed = workspace.companies.find((o) => normalizeDomain(o.company.domain) === wanted);
  if (observed === undefined) return undefined;
  return shown(
    observed,
    newestFirst(observed.contacts, (c) => c.service_last_seen).slice(0, MAX_ENTRIES),
  );
}

/** A contact as the server sends it: without activity unless asked, else the 10 latest entries. */
function shownContact(contact: ContactWithActivity, includeActivity: boolean) {
  const { site_activity, linkedin_activity, ...fields } = contact;
  if (!includeActivity) return fields;
  return {
    ...fields,
    site_activity: newestFirst(site_activity, (s) => s.start_time).slice(0, MAX_ENTRIES),
    linkedin_activity: newestFirst(linkedin_activity, (e) => e.start_time).slice(0, MAX_ENTRIES),
  };
}

function newestFirst<T>(items: readonly T[], time: (item: T) => string): T[] {
  return [...items].sort((a, b) => Date.parse(time(b)) - Date.parse(time(a)));
}

/** `application/json`, with parameters, or any `application/...+json`. */
function isJsonType(contentType: string | null): boolean {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase() ?? '';
  return /^application\/(json|[\w.+-]+\+json)$/.test(type);
}

function jsonObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes));
    const isObject = typeof value === 'object' && value !== null && !Array.isArray(value);
    return isObject ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

const own = (body: Record<string, unknown>, field: string): unknown =>
  Object.hasOwn(body, field) ? body[field] : undefined;

/** Absent, null and blank mean "not given"; a wrong type, an over-long value or NUL is a 400. */
function optionalString(body: Record<string, unknown>, field: string, max: number) {
  const value = own(body, field);
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.length > max || !isStorableText(value)) {
    throw new Refused(400);
  }
  return value.trim() === '' ? undefined : value;
}

function json(status: number, body: unknown, headers?: Record<string, string>): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', ...NO_STORE, ...headers },
  });
}

function refusal(status: Refusal, headers?: Record<string, string>): Response {
  return json(status, { error: ERROR_MESSAGES[status] }, headers);
}
