import { KEY_PREFIX, LOOKUP_PATH } from '@service/lookup-contract';
import { fromEnvironment, isBrowser } from './environment.js';
import {
  ConfigurationError,
  ConnectionError,
  errorFromAnswer,
  type KeyTransport,
  LookupError,
  ResponseValidationError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedError,
} from './errors.js';
import { hookFailures, type LookupHooks, transportHooks } from './hooks.js';
import { bufferedFetch, type FetchFunction, type Received, received } from './http.js';
import { isNetworkFailure } from './network-failure.js';
import { KEY_CHARACTERS, keyRedactor, type Redact } from './redact.js';
import { schemas, strictSchemas } from './schemas.js';
import { AttemptTimeoutError, send } from './transport.js';
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

const AUTO_ORDER: readonly KeyTransport[] = ['bearer', 'header', 'body'];
const TRANSPORTS: readonly string[] = ['auto', ...AUTO_ORDER];
/** 127.0.0.0/8, `localhost` and `[::1]`, as the URL parser writes a hostname. */
const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/;
const MAX_TIMER_MS = 2_147_483_647;
const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024;
const CLIENT = `@service/lookup-client/${VERSION}`;

/** One call's settings, and the retries it has left across the transports it tries. */
interface Call {
  readonly payload: object;
  readonly headers: Headers;
  readonly timeout: number;
  readonly signal: AbortSignal | undefined;
  retriesLeft: number;
}

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
  readonly #url: string;
  readonly #secretKey: string;
  readonly #keyTransport: KeyTransport | 'auto';
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #fetch: FetchFunction;
  readonly #headers: Headers;
  readonly #strict: boolean;
  readonly #hooks: LookupHooks;
  readonly #maxResponseBytes: number;
  readonly #redact: Redact;
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
    const keyTransport = options.keyTransport ?? 'auto';
    if (!TRANSPORTS.includes(keyTransport)) {
      throw new ConfigurationError(`keyTransport must be one of ${TRANSPORTS.join(', ')}.`);
    }
    this.#secretKey = checkedKey(options.secretKey ?? fromEnvironment('SERVICE_SECRET_KEY'));
    this.#redact = keyRedactor(this.#secretKey);
    this.#url = lookupUrl(
      options.baseUrl ?? fromEnvironment('SERVICE_BASE_URL'),
      options.dangerouslyAllowInsecureHttp === true,
    );
    this.#keyTransport = keyTransport;
    this.#timeout = checkedTimeout(options.timeout ?? 30_000);
    this.#maxRetries = checkedMaxRetries(options.maxRetries ?? 2);
    this.#maxResponseBytes = whole(
      options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      1,
      'maxResponseBytes',
    );
    this.#fetch = options.fetch ?? globalFetch();
    this.#strict = options.strict === true;
    this.#hooks = options.hooks ?? {};
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
      headers: withHeaders(new Headers(this.#headers), options.headers),
      timeout: options.timeout === undefined ? this.#timeout : checkedTimeout(options.timeout),
      signal: options.signal,
      retriesLeft:
        options.maxRetries === undefined ? this.#maxRetries : checkedMaxRetries(options.maxRetries),
    };
    const transports = this.#transportsToTry();
    for (let index = 0; ; index++) {
      const transport = transports[index] as KeyTransport;
      const { answer, attempts } = await this.#send(call, transport);
      if (answer.status === 401) {
        if (index + 1 < transports.length) continue;
        if (transports.length === AUTO_ORDER.length) this.#refuseKey();
        throw new UnauthorizedError(answer, transports);
      }
      const succeeded = answer.status >= 200 && answer.status < 300;
      if (succeeded || answer.status === 404) this.#remember(transport);
      if (!succeeded) throw errorFromAnswer(answer);
      const data = this.#parse(answer, includeActivity);
      const { status, headers } = answer;
      const requestId = headers.get('x-request-id') ?? undefined;
      return { data, response: { status, headers, requestId, transport, attempts } };
    }
  }

  /**
   * Under `'auto'`: the transport that worked last, then the others once more (a proxy may have
   * started stripping a header); after every transport was refused, bearer alone.
   */
  #transportsToTry(): readonly KeyTransport[] {
    if (this.#keyTransport !== 'auto') return [this.#keyTransport];
    if (this.#keyRefused) return ['bearer'];
    const first = this.#workingTransport;
    return first === undefined ? AUTO_ORDER : [first, ...AUTO_ORDER.filter((t) => t !== first)];
  }

  #remember(transport: KeyTransport): void {
    this.#workingTransport = transport;
    this.#keyRefused = false;
  }

  #refuseKey(): void {
    this.#workingTransport = undefined;
    this.#keyRefused = true;
  }

  /** Sends through one transport, retrying transient failures; resolves to the last answer. */
  async #send(
    call: Call,
    transport: KeyTransport,
  ): Promise<{ answer: Received; attempts: number }> {
    const headers = new Headers(call.headers);
    if (transport === 'bearer') headers.set('authorization', `Bearer ${this.#secretKey}`);
    if (transport === 'header') headers.set('x-service-secret-key', this.#secretKey);
    const payload =
      transport === 'body' ? { ...call.payload, secretKey: this.#secretKey } : call.payload;
    let attempts = 0;
    const toError = (failure: unknown) => this.#noAnswer(failure, call.timeout, attempts);
    const hooks = transportHooks(this.#hooks, toError);
    const request = new Request(this.#url, {
      method: 'POST',
      headers,
      body: JSON.stringify(payload),
    });
    try {
      const response = await send(request, {
        fetch: bufferedFetch(this.#fetch, () => attempts++, this.#maxResponseBytes, this.#redact),
        timeout: call.timeout,
        retries: call.retriesLeft,
        signal: call.signal,
        hooks: {
          ...hooks,
          beforeRetry: async (...args) => {
            call.retriesLeft--;
            await hooks.beforeRetry(...args);
          },
        },
      });
      return { answer: received(response), attempts };
    } catch (error) {
      if (call.signal?.aborted) throw call.signal.reason;
      if (hookFailures.has(error as object)) throw error;
      throw toError(error);
    }
  }

  /**
   * The client's error for an attempt that failed: an error answer, a timeout, no connection, or
   * anything else thrown (which is not dressed up as the network's).
   */
  #noAnswer(failure: unknown, timeout: number, attempts: number): LookupError {
    if (failure instanceof LookupError) return failure;
    if (failure instanceof Response) return errorFromAnswer(received(failure));
    if (failure instanceof AttemptTimeoutError) {
      return new TimeoutError(`Lookup timed out after ${timeout} ms (${plural(attempts)}).`);
    }
    if (!isNetworkFailure(failure)) return new UnexpectedError(failure);
    return new ConnectionError(
      `Could not reach the lookup service at ${new URL(this.#url).origin} (${plural(attempts)}).`,
      { cause: failure },
    );
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

/** Nothing a caller puts in the query is dropped unsent: a key the wire has no place for is refused. */
function checkQuery(query: LookupQuery): void {
  for (const key in query) {
    if (!/^(email|domain|includeActivity)$/.test(key)) {
      throw new ConfigurationError(
        `A lookup query takes email, domain and includeActivity, not ${key}: options go in ` +
          "lookup()'s second argument.",
      );
    }
  }
}

/** The key as given, when it can only be a live server key; the message never holds the key. */
function checkedKey(secretKey: string | undefined): string {
  const rest = secretKey?.startsWith(KEY_PREFIX) && secretKey.slice(KEY_PREFIX.length);
  if (!rest || !KEY_CHARACTERS.test(rest)) {
    throw new ConfigurationError(
      `secretKey (or SERVICE_SECRET_KEY) must be a server secret key: "${KEY_PREFIX}" and ` +
        'letters, digits or -._~+/=.',
    );
  }
  return secretKey as string;
}

function lookupUrl(baseUrl: string | URL | undefined, allowInsecureHttp: boolean): string {
  const base = baseUrl !== undefined && URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (base?.protocol !== 'https:' && base?.protocol !== 'http:') {
    throw new ConfigurationError('baseUrl (or SERVICE_BASE_URL) must be an absolute http(s) URL.');
  }
  // The message does not echo the URL, which holds the password.
  if (base.username || base.password) {
    throw new ConfigurationError('baseUrl must not hold credentials.');
  }
  if (base.protocol === 'http:' && !allowInsecureHttp && !LOOPBACK.test(base.hostname)) {
    throw new ConfigurationError(
      'baseUrl: http sends the key in cleartext; use https or dangerouslyAllowInsecureHttp: true.',
    );
  }
  // The base's last path segment is kept: without a trailing slash, URL resolution drops it.
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL(LOOKUP_PATH.slice(1), base).href;
}

/**
 * `headers` with `extra` set over it. `set`, not an object spread: header names are
 * case-insensitive, and a spread would keep `User-Agent` beside `user-agent`, which Headers then
 * joins into one value. A name or value fetch would refuse is a ConfigurationError that does not
 * echo it (it might hold a credential).
 */
function withHeaders(headers: Headers, extra: Record<string, string> | undefined): Headers {
  for (const [name, value] of Object.entries(extra ?? {})) {
    try {
      headers.set(name, value);
    } catch {
      throw new ConfigurationError('headers must hold valid HTTP header names and values.');
    }
  }
  return headers;
}

/** The global `fetch`, looked up per request so that interceptors installed later still apply. */
function globalFetch(): FetchFunction {
  if (typeof globalThis.fetch !== 'function') {
    throw new ConfigurationError('No global fetch in this runtime: pass the `fetch` option.');
  }
  return (input, init) => globalThis.fetch(input, init);
}

function checkedTimeout(timeout: number): number {
  return checked(
    timeout > 0 && timeout <= MAX_TIMER_MS,
    timeout,
    `timeout must be 1 to ${MAX_TIMER_MS} ms.`,
  );
}

function checkedMaxRetries(maxRetries: number): number {
  return whole(maxRetries, 0, 'maxRetries');
}

function whole(value: number, least: number, name: string): number {
  return checked(
    Number.isInteger(value) && value >= least,
    value,
    `${name} must be a whole number, ${least} or more.`,
  );
}

function checked(ok: boolean, value: number, message: string): number {
  if (!ok) throw new ConfigurationError(message);
  return value;
}

function plural(attempts: number): string {
  return `${attempts} attempt${attempts === 1 ? '' : 's'}`;
}
