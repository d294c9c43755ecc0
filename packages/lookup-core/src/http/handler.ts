/**
 * `POST /api/service/lookup` as a Fetch handler: `(Request) => Promise<Response>`, no framework.
 * A shell over the transport-neutral core (core.ts): the Request is read once, the answer written
 * into one Response.
 */
import { readBody } from './body.js';
import {
  type CoreRequest,
  createLookupCore,
  type LookupCore,
  type LookupHandlerOptions,
} from './core.js';

export type { LookupHandlerOptions } from './core.js';

/** What the transport knows of the client (its address, for the log of refused keys). */
export interface LookupClientInfo {
  /** The client's IP address, logged with a refused key. */
  address?: string | undefined;
}

/**
 * A Fetch handler of the lookup. `core` is the transport-neutral decision behind it when it has
 * one (a handler made by `createLookupHandler` does): `toNodeListener` then calls it without
 * building Fetch objects. A plain property, so a handler of the ES module build is read the same
 * by the CommonJS build, and any function of this type may be passed where a handler is taken.
 */
export type LookupHandler = ((request: Request, client?: LookupClientInfo) => Promise<Response>) & {
  /** The transport-neutral decision behind the handler, when it has one. */
  readonly core?: LookupCore;
};

/** The path of an absolute URL, without query or fragment, read without parsing the URL. */
function pathOf(url: string): string {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  if (start === -1) return '/';
  const end = url.slice(start).search(/[?#]/);
  return end === -1 ? url.slice(start) : url.slice(start, start + end);
}

const toCoreRequest = (request: Request, client: LookupClientInfo | undefined): CoreRequest => ({
  address: client?.address,
  method: request.method,
  path: pathOf(request.url),
  header: (name) => request.headers.get(name) ?? undefined,
  body: (limit) => readBody(request, limit),
});

/**
 * The lookup (`POST /api/service/lookup`) as a Fetch handler over `options.store`, answering the
 * keys in `options.keys`: mount it in any runtime or framework that speaks `Request`/`Response`.
 * Throws a `TypeError` at once when a configured key is malformed.
 */
export function createLookupHandler(options: LookupHandlerOptions): LookupHandler {
  const core = createLookupCore(options);
  const handleLookup = async (request: Request, client?: LookupClientInfo) => {
    try {
      const answer = await core(toCoreRequest(request, client));
      return new Response(answer.body as BodyInit | null, {
        status: answer.status,
        headers: answer.headers,
      });
    } finally {
      // Whatever was not read of the body is released, not left to stall the connection.
      if (request.body && !request.bodyUsed) request.body.cancel().catch(() => {});
    }
  };
  return Object.assign(handleLookup, { core });
}
