import { fromEnvironment, isBrowser } from './environment.js';
import {
  ConfigurationError,
  errorFromAnswer,
  type KeyTransport,
  ResponseValidationError,
  UnauthorizedError,
} from './errors.js';
import type { LookupHooks } from './hooks.js';
import type { FetchFunction, Received } from './http/fetch.js';
import { type Call, type Sender, send } from './http/send.js';
import {
  AUTO_ORDER,
  checkedKey,
  checkedKeyTransport,
  checkedMaxRetries,
  checkedTimeout,
  checkQuery,
  globalFetch,
  lookupUrl,
  whole,
  withHeaders,
} from './options.js';
import { keyRedactor } from './redact.js';
import { schemas, strictSchemas } from './schemas.js';
import type { LookupResponse, LookupResponseWithActivity } from './types.js';
import { VERSION } from './version.js';

/**
 * Options of `new LookupClient()`. Every one is optional: the key and the base URL default to
 * `SERVICE_SECRET_KEY` and `SERVICE_BASE_URL` from the environment.
 */
export interface LookupClientOptions {
  /** The server secret key (`sk_live_...`). Defaults to `process.env.SERVICE_SECRET_KEY`. */
  secretKey?: string | undefined;
  /**
   * Where the service runs; the lookup is `POST {baseUrl}/api/service/lookup`. Defaults to
   * `process.env.SERVICE_BASE_URL`.
   */
  baseUrl?: string | URL | undefined;
  /** How the key travels. `'auto'` (default) falls back from bearer to header to body on 401. */
  keyTransport?: KeyTransport | 'auto' | undefined;
  /** Milliseconds each attempt may take (headers and body). Default 30 000. */
  timeout?: number | undefined;
  /** Further attempts after a connection error, timeout, 408, 409, 429 or 5xx. Default 2. */
  maxRetries?: number | undefined;
  /** The `fetch` to call. Default: the global `fetch`, looked up at each request. */
  fetch?: FetchFunction | undefined;
  /** Headers added to every request (the key's header is always the client's own). */
  headers?: Record<string, string> | undefined;
  /** Check answers against the published spec exactly (see the README, "Forward compatible"). */
  strict?: boolean | undefined;
  /** Observe every call, for logging and tracing; they never see the key. */
  hooks?: LookupHooks | undefined;
  /** Run in a browser even though the secret key is then exposed to the page's users. */
  dangerouslyAllowBrowser?: boolean | undefined;
  /**
   * Send the key over plain `http://` to a host other than loopback, where anyone on the path
   * can read it. Default false: such a `baseUrl` is a ConfigurationError.
   */
  dangerouslyAllowInsecureHttp?: boolean | undefined;
  /** Bytes of an answer's body read at most; past it, `ResponseTooLargeError`. Default 4 MiB. */
  maxResponseBytes?: number | undefined;
}

/**
 * The request as the wire has it: find a contact by email or a company by domain (with both, the
 * server uses the email), with the contacts' activity when `includeActivity` is true.
 *
 * Not the same as `@service/lookup-core`'s `LookupQuery`, which is the server's side of it: a
 * query already normalised and scoped to a `workspace`, as a store reads it. This one is what a
 * caller sends, as typed.
 */
export type LookupQuery = (
  | { email: string; domain?: string | undefined }
  | { email?: string | undefined; domain: string }
) & {
  /** Include `site_activity` and `linkedin_activity` on every contact. Default false. */
  includeActivity?: boolean | undefined;
};

/**
 * Part of a query or of the options that asks for the activity (`true` in either place does); it
 * selects the `lookup()` overload that returns {@link LookupResponseWithActivity}.
 */
export type Activity = { includeActivity: true };
/** Part of a query or of the options that does not ask for the activity. */
export type NoActivity = { includeActivity?: false | undefined };

/** Options of one `client.lookup()` call; each left `undefined` keeps the client's value. */
export interface LookupRequestOptions {
  /** Include `site_activity` and `linkedin_activity` on every contact. Default false. */
  includeActivity?: boolean | undefined;
  /** Aborting rejects the call with the signal's reason, as `fetch` does. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout for this call, in milliseconds. Default: the client's. */
  timeout?: number | undefined;
  /** Further attempts for this call. Default: the client's. */
  maxRetries?: number | undefined;
  /** Headers added to this call's request, over the client's. */
  headers?: Record<string, string> | undefined;
}

/** What a successful answer said besides its data. */
export interface LookupResponseInfo {
  /** The HTTP status of the answer (200). */
  readonly status: number;
  /** The answer's headers. */
  readonly headers: Headers;
  /** The `x-request-id` response header, when the server sent one. */
  readonly requestId: string | undefined;
  /** The key transport the answer came through. */
  readonly transport: KeyTransport;
  /** Requests made for this answer through that transport (1 when no retry was needed). */
  readonly attempts: number;
}

/** The promise of a lookup; `withResponse()` gives the answer's metadata beside the data. */
export interface LookupPromise<T> extends Promise<T> {
  /**
   * The same call's data beside what the answer said about itself (status, headers, request id,
   * key transport, attempts).
   *
   * @example
   * ```ts
   * const { data, response } = await client.lookup({ domain: 'acme.com' }).withResponse();
   * console.log(data.company.name, response.requestId);
   * ```
   */
  withResponse(): Promise<{ data: T; response: LookupResponseInfo }>;
}

const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const CLIENT = `@service/lookup-client/${VERSION}`;

/**
 * The client of the Service Lookup API: one call, {@link LookupClient.lookup}, over
 * `POST {baseUrl}/api/service/lookup`, with retries, key transport fallback, redacted errors and
 * every answer checked against the contract. Make one and reuse it: it remembers which key
 * transport works.
 *
 * @example
 * ```ts
 * const client = new LookupClient({ baseUrl: 'https://lookup.example.com' }); // key: SERVICE_SECRET_KEY
 * const { company, contacts } = await client.lookup({ email: 'ada@acme.com' });
 * ```
 */
export class LookupClient {
  readonly #sender: Sender;
  readonly #keyTransport: KeyTransport | 'auto';
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #headers: Headers;
  readonly #strict: boolean;
  /** Under `'auto'`: the transport the lookup last answered through. */
  #workingTransport: KeyTransport | undefined;
  /** Under `'auto'`: every transport got 401, so the key is wrong; send it once until it works. */
  #keyRefused = false;

  /**
   * @param options - see {@link LookupClientOptions}; the key and base URL default to the
   *   environment's `SERVICE_SECRET_KEY` and `SERVICE_BASE_URL`.
   * @throws {@link ConfigurationError} for options that cannot work (a missing or malformed key,
   *   plain `http://` off loopback, credentials in `baseUrl`, a browser without
   *   `dangerouslyAllowBrowser`), with a message that never repeats the key.
   */
  constructor(options: LookupClientOptions = {}) {
    if (isBrowser() && options.dangerouslyAllowBrowser !== true) {
      throw new ConfigurationError(
        'In a browser every visitor can read the secret key: call the lookup from a server, or ' +
          'pass dangerouslyAllowBrowser: true.',
      );
    }
    this.#keyTransport = checkedKeyTransport(options.keyTransport);
    const secretKey = checkedKey(options.secretKey ?? fromEnvironment('SERVICE_SECRET_KEY'));
    this.#sender = {
      secretKey,
      redact: keyRedactor(secretKey),
      url: lookupUrl(
        options.baseUrl ?? fromEnvironment('SERVICE_BASE_URL'),
        options.dangerouslyAllowInsecureHttp === true,
      ),
      maxResponseBytes: whole(
        options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
        1,
        'maxResponseBytes',
      ),
      fetch: options.fetch ?? globalFetch(),
      hooks: options.hooks ?? {},
    };
    this.#timeout = checkedTimeout(options.timeout ?? 30_000);
    this.#maxRetries = checkedMaxRetries(options.maxRetries ?? 2);
    this.#strict = options.strict === true;
    this.#headers = withHeaders(
      new Headers({
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': CLIENT,
      }),
      options.headers,
    );
    this.#headers.set('x-service-client', CLIENT);
  }

  /**
   * Looks up a contact by `email` or a company by `domain`. The activity is included when
   * `includeActivity` is true in the query or in the options, and the return type says so.
   * Rejects with a {@link LookupError} (a {@link NotFoundError} when the service has not seen
   * the email or domain), or with the signal's reason when aborted.
   *
   * @example
   * ```ts
   * const { company } = await client.lookup({ domain: 'acme.com' });
   * const withActivity = await client.lookup({ email: 'ada@acme.com', includeActivity: true });
   * ```
   */
  lookup(
    query: LookupQuery & Activity,
    options?: LookupRequestOptions,
  ): LookupPromise<LookupResponseWithActivity>;
  lookup(
    query: LookupQuery,
    options: LookupRequestOptions & Activity,
  ): LookupPromise<LookupResponseWithActivity>;
  lookup(
    query: LookupQuery & NoActivity,
    options?: LookupRequestOptions & NoActivity,
  ): LookupPromise<LookupResponse>;
  lookup(
    query: LookupQuery,
    options?: LookupRequestOptions,
  ): LookupPromise<LookupResponse | LookupResponseWithActivity>;
  lookup(
    query: LookupQuery,
    options: LookupRequestOptions = {},
  ): LookupPromise<LookupResponse | LookupResponseWithActivity> {
    const outcome = this.#lookup(query, options);
    const data = outcome.then((answer) => answer.data);
    // Awaiting only `withResponse()` must not leave `data` rejected with no one listening.
    data.catch(() => undefined);
    return Object.assign(data, { withResponse: () => outcome });
  }

  async #lookup(query: LookupQuery, options: LookupRequestOptions) {
    checkQuery(query);
    const includeActivity = query.includeActivity === true || options.includeActivity === true;
    const call: Call = {
      // The query holds only what the wire body has (checkQuery); JSON drops what is undefined.
      payload: { ...query, includeActivity },
      // Shared when the call adds none: each key transport sends a copy of its own.
      headers: options.headers
        ? withHeaders(new Headers(this.#headers), options.headers)
        : this.#headers,
      timeout: options.timeout === undefined ? this.#timeout : checkedTimeout(options.timeout),
      signal: options.signal,
      retriesLeft:
        options.maxRetries === undefined ? this.#maxRetries : checkedMaxRetries(options.maxRetries),
    };
    const keyTransports = this.#keyTransportsToTry();
    for (let index = 0; ; index++) {
      const keyTransport = keyTransports[index] as KeyTransport;
      const { answer, attempts } = await send(this.#sender, call, keyTransport);
      if (answer.status === 401) {
        if (index + 1 < keyTransports.length) continue;
        if (keyTransports.length === AUTO_ORDER.length) this.#refuseKey();
        throw new UnauthorizedError(answer, keyTransports);
      }
      const succeeded = answer.status >= 200 && answer.status < 300;
      if (succeeded || answer.status === 404) this.#remember(keyTransport);
      if (!succeeded) throw errorFromAnswer(answer);
      const data = this.#parse(answer, includeActivity);
      const { status, headers } = answer;
      const requestId = headers.get('x-request-id') ?? undefined;
      return {
        data,
        response: { status, headers, requestId, transport: keyTransport, attempts },
      };
    }
  }

  /**
   * Under `'auto'`: the transport that worked last, then the others once more (a proxy may have
   * started stripping a header); after every transport was refused, bearer alone.
   */
  #keyTransportsToTry(): readonly KeyTransport[] {
    if (this.#keyTransport !== 'auto') return [this.#keyTransport];
    if (this.#keyRefused) return ['bearer'];
    const first = this.#workingTransport;
    return first === undefined ? AUTO_ORDER : [first, ...AUTO_ORDER.filter((t) => t !== first)];
  }

  #remember(keyTransport: KeyTransport): void {
    this.#workingTransport = keyTransport;
    this.#keyRefused = false;
  }

  #refuseKey(): void {
    this.#workingTransport = undefined;
    this.#keyRefused = true;
  }

  /** The answer's JSON itself once it passed the schema, so fields the schema does not name stay. */
  #parse(answer: Received, includeActivity: boolean): LookupResponse | LookupResponseWithActivity {
    if (!answer.isJson) {
      throw new ResponseValidationError(answer, [
        { code: 'custom', path: [], message: 'Expected a JSON body', input: answer.body },
      ]);
    }
    const set = this.#strict ? strictSchemas : schemas;
    const schema = includeActivity
      ? set.lookupResponseWithActivitySchema
      : set.lookupResponseSchema;
    const result = schema.safeParse(answer.body);
    if (!result.success) throw new ResponseValidationError(answer, result.error.issues);
    return answer.body as LookupResponse | LookupResponseWithActivity;
  }
}
