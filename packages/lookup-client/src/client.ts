import { isBrowser, secretKeyFromEnvironment } from './environment.js';
import {
  ConfigurationError,
  ConnectionError,
  errorFromAnswer,
  type KeyTransport,
  ResponseValidationError,
  TimeoutError,
  UnauthorizedError,
} from './errors.js';
import { attempt, type FetchFunction, type Received } from './http.js';
import { isRetryableStatus, retryDelay, sleep } from './retry.js';
import {
  type LookupResponse,
  type LookupResponseWithActivity,
  lookupResponseSchema,
  lookupResponseWithActivitySchema,
} from './schemas.js';
import { VERSION } from './version.js';

export interface LookupClientOptions {
  /** The server secret key (`sk_live_...`). Defaults to `process.env.SERVICE_SECRET_KEY`. */
  secretKey?: string | undefined;
  /** Where the service runs; the lookup is `POST {baseUrl}/api/service/lookup`. */
  baseUrl: string | URL;
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
  /** Run in a browser even though the secret key is then exposed to the page's users. */
  dangerouslyAllowBrowser?: boolean | undefined;
}

/** Find a contact by email or a company by domain; with both, the server uses the email. */
export type LookupQuery =
  | { email: string; domain?: string | undefined }
  | { email?: string | undefined; domain: string };

export interface LookupRequestOptions {
  /** Include `site_activity` and `linkedin_activity` on every contact. Default false. */
  includeActivity?: boolean | undefined;
  /** Aborting rejects the call with the signal's reason, as `fetch` does. */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout for this call, in milliseconds. Default: the client's. */
  timeout?: number | undefined;
}

const LOOKUP_PATH = 'api/service/lookup';
const AUTO_ORDER: readonly KeyTransport[] = ['bearer', 'header', 'body'];
const TRANSPORTS: readonly string[] = ['auto', ...AUTO_ORDER];
const KEY_PREFIX = 'sk_live_';
const MAX_TIMER_MS = 2_147_483_647;
const CLIENT = `@service/lookup-client/${VERSION}`;

/** A retry budget shared by every transport tried within one call. */
interface Budget {
  retries: number;
}

export class LookupClient {
  readonly #url: string;
  readonly #secretKey: string;
  readonly #keyTransport: KeyTransport | 'auto';
  readonly #timeout: number;
  readonly #maxRetries: number;
  readonly #fetch: FetchFunction;
  readonly #headers: Headers;
  /** Under `'auto'`: the first transport the lookup itself answered through, kept for the client's life. */
  #workingTransport: KeyTransport | undefined;

  constructor(options: LookupClientOptions) {
    if (isBrowser() && options.dangerouslyAllowBrowser !== true) {
      throw new ConfigurationError(
        'LookupClient refuses to run in a browser: it would expose your secret key to every visitor. ' +
          'Call the lookup from your server, or pass dangerouslyAllowBrowser: true if you accept the risk.',
      );
    }
    const secretKey = options.secretKey ?? secretKeyFromEnvironment();
    if (secretKey === undefined || secretKey === '') {
      throw new ConfigurationError(
        'Missing secret key: pass `secretKey` or set the SERVICE_SECRET_KEY environment variable.',
      );
    }
    if (!secretKey.startsWith(KEY_PREFIX) || secretKey.length === KEY_PREFIX.length) {
      throw new ConfigurationError(
        `The secret key must be a server secret key starting with "${KEY_PREFIX}" (see the service settings).`,
      );
    }
    const keyTransport = options.keyTransport ?? 'auto';
    if (!TRANSPORTS.includes(keyTransport)) {
      throw new ConfigurationError(`keyTransport must be one of ${TRANSPORTS.join(', ')}.`);
    }
    const fetchFunction = options.fetch ?? globalFetch();
    this.#url = lookupUrl(options.baseUrl);
    this.#secretKey = secretKey;
    this.#keyTransport = keyTransport;
    this.#timeout = checkedTimeout(options.timeout ?? 30_000);
    this.#maxRetries = checkedMaxRetries(options.maxRetries ?? 2);
    this.#fetch = fetchFunction;
    this.#headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json',
      'user-agent': CLIENT,
    });
    // `set`, not an object spread: header names are case-insensitive, and a spread would keep
    // `User-Agent` beside `user-agent`, which Headers then joins into one comma-separated value.
    for (const [name, value] of Object.entries(options.headers ?? {})) {
      this.#headers.set(name, value);
    }
    this.#headers.set('x-service-client', CLIENT);
  }

  /** Looks up a contact by `email` or a company by `domain`. */
  lookup(
    query: LookupQuery,
    options: LookupRequestOptions & { includeActivity: true },
  ): Promise<LookupResponseWithActivity>;
  lookup(
    query: LookupQuery,
    options?: LookupRequestOptions & { includeActivity?: false },
  ): Promise<LookupResponse>;
  lookup(
    query: LookupQuery,
    options?: LookupRequestOptions,
  ): Promise<LookupResponse | LookupResponseWithActivity>;
  async lookup(
    query: LookupQuery,
    options: LookupRequestOptions = {},
  ): Promise<LookupResponse | LookupResponseWithActivity> {
    const includeActivity = options.includeActivity === true;
    const payload = {
      ...(query.email !== undefined && { email: query.email }),
      ...(query.domain !== undefined && { domain: query.domain }),
      includeActivity,
    };
    const timeout = options.timeout === undefined ? this.#timeout : checkedTimeout(options.timeout);
    const transports = this.#transportsToTry();
    const budget: Budget = { retries: 0 };
    for (let index = 0; ; index++) {
      const transport = transports[index] as KeyTransport;
      const answer = await this.#send(payload, transport, timeout, options.signal, budget);
      if (answer.status === 401) {
        if (index + 1 < transports.length) continue;
        throw new UnauthorizedError(answer, transports.slice(0, index + 1));
      }
      const succeeded = answer.status >= 200 && answer.status < 300;
      if (succeeded || answer.status === 404) this.#workingTransport = transport;
      if (!succeeded) throw errorFromAnswer(answer);
      return parseLookup(answer, includeActivity);
    }
  }

  #transportsToTry(): readonly KeyTransport[] {
    if (this.#keyTransport !== 'auto') return [this.#keyTransport];
    return this.#workingTransport === undefined ? AUTO_ORDER : [this.#workingTransport];
  }

  /** Sends through one transport, retrying transient failures; returns the last answer. */
  async #send(
    payload: object,
    transport: KeyTransport,
    timeout: number,
    signal: AbortSignal | undefined,
    budget: Budget,
  ): Promise<Received> {
    const headers = new Headers(this.#headers);
    if (transport === 'bearer') headers.set('authorization', `Bearer ${this.#secretKey}`);
    if (transport === 'header') headers.set('x-service-secret-key', this.#secretKey);
    const body = JSON.stringify(
      transport === 'body' ? { ...payload, secretKey: this.#secretKey } : payload,
    );
    const request = { fetch: this.#fetch, url: this.#url, headers, body, timeout, signal };
    for (let attempts = 1; ; attempts++) {
      const outcome = await attempt(request);
      const answer = outcome.kind === 'answer' ? outcome.answer : undefined;
      if (answer && !isRetryableStatus(answer.status)) return answer;
      const delay =
        budget.retries < this.#maxRetries ? retryDelay(budget.retries, answer?.headers) : undefined;
      if (delay === undefined) {
        if (outcome.kind === 'answer') return outcome.answer;
        if (outcome.kind === 'timeout') {
          throw new TimeoutError(`Lookup timed out after ${timeout} ms (${plural(attempts)}).`);
        }
        throw new ConnectionError(
          `Could not reach the lookup service at ${new URL(this.#url).origin} (${plural(attempts)}).`,
          { cause: outcome.cause },
        );
      }
      budget.retries++;
      await sleep(delay, signal);
    }
  }
}

function parseLookup(
  answer: Received,
  includeActivity: boolean,
): LookupResponse | LookupResponseWithActivity {
  if (!answer.isJson) {
    throw new ResponseValidationError(answer, [
      { code: 'custom', path: [], message: 'Expected a JSON body', input: answer.body },
    ]);
  }
  const result = (
    includeActivity ? lookupResponseWithActivitySchema : lookupResponseSchema
  ).safeParse(answer.body);
  if (!result.success) throw new ResponseValidationError(answer, result.error.issues);
  return result.data;
}

function lookupUrl(baseUrl: string | URL): string {
  const base = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (base?.protocol !== 'https:' && base?.protocol !== 'http:') {
    throw new ConfigurationError(
      'baseUrl must be an absolute http(s) URL, e.g. https://example.com.',
    );
  }
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL(LOOKUP_PATH, base).href;
}

/** The global `fetch`, looked up per request so that interceptors installed later still apply. */
function globalFetch(): FetchFunction {
  if (typeof globalThis.fetch !== 'function') {
    throw new ConfigurationError('No global fetch in this runtime: pass the `fetch` option.');
  }
  return (input, init) => globalThis.fetch(input, init);
}

function checkedTimeout(timeout: number): number {
  if (!(timeout > 0 && timeout <= MAX_TIMER_MS)) {
    throw new ConfigurationError(
      `timeout must be a number of milliseconds between 1 and ${MAX_TIMER_MS}.`,
    );
  }
  return timeout;
}

function checkedMaxRetries(maxRetries: number): number {
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new ConfigurationError('maxRetries must be a whole number, 0 or more.');
  }
  return maxRetries;
}

function plural(attempts: number): string {
  return attempts === 1 ? '1 attempt' : `${attempts} attempts`;
}
