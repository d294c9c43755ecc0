/**
 * A connection to one org. jsforce is the transport: every REST, Tooling and Metadata call goes
 * through a jsforce `Connection` (the caller's own, or one made from tokens), so its session
 * refresh, its retries of 5xx answers and network errors on GET and PATCH, and its parsing of
 * Metadata `SaveResult`s apply. This class adds what jsforce lacks: retries of
 * `UNABLE_TO_LOCK_ROW`, of unavailable Metadata calls and of the org's concurrent request limit,
 * no retry at all on its daily API limit (that `REQUEST_LIMIT_EXCEEDED` stops the run), no
 * DELETE ever, a refresh on userinfo's `Bad_OAuth_Token`, call counts, and errors a caller can
 * branch on, with no token in them.
 */
import { DEFAULT_API_VERSION } from '../../metadata/requests.js';
import { requireSecureUrl } from '../auth/secure-url.js';
import { type ApiUsage, SalesforceApiLimitError, SalesforceError } from '../errors.js';
import { asArray, classifyFailure, closedBeforeAnswer, withStatus } from './failures.js';
import {
  type JsforceConnection,
  type JsforceSaveResult,
  metadataApi,
  tokenConnection,
} from './jsforce.js';
import { type RefreshedSession, SessionRenewal } from './session-renewal.js';

export type { RefreshedSession } from './session-renewal.js';

/** How calls are retried: count and exponential backoff with jitter. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  readonly maxRetries: number;
  /** First backoff delay in ms, doubled per retry (default 500). */
  readonly baseDelayMs: number;
  /** Ceiling of one delay in ms of our own retries (default 20 000). */
  readonly maxDelayMs: number;
}

/** Options for any connection, tokens or your own jsforce `Connection`. */
export interface TransportOptions {
  readonly retry?: Partial<RetryPolicy> | undefined;
  /**
   * How long one REST call waits for the org's answer, its retries included, in ms (default
   * 60,000). A call with no answer by then fails as a network error.
   */
  readonly requestTimeoutMs?: number | undefined;
}

/** The default of `requestTimeoutMs`: a minute. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** The session and connected app `connect()` makes a connection from. */
export interface ConnectionOptions extends TransportOptions {
  readonly instanceUrl: string;
  readonly accessToken: string;
  /** With `clientId`, lets the connection refresh an expired session by itself. */
  readonly refreshToken?: string | undefined;
  readonly clientId?: string | undefined;
  /** Required by Salesforce for the refresh flow unless the connected app waives it. */
  readonly clientSecret?: string | undefined;
  /** Login host for refreshes: `production` (default), `sandbox` or a custom My Domain. */
  readonly loginUrl?: string | undefined;
  /** REST, Tooling and Metadata API version, default `59.0`. */
  readonly apiVersion?: string | undefined;
  /** Called after each refresh with the new session (and the refresh token to keep). */
  readonly onRefresh?: ((session: RefreshedSession) => void | Promise<void>) | undefined;
}

/** jsforce's HTTP transport, as its HTTP layer calls it: a promise of the response. */
export interface Transport {
  httpRequest(
    request: unknown,
    options?: unknown,
  ): PromiseLike<{ headers?: Record<string, string | undefined>; statusCode?: number } | undefined>;
}

const ignore = () => {};

/** The methods the connection sends. There is no DELETE: the service never deletes records. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH';
const METHODS: readonly string[] = ['GET', 'POST', 'PATCH'];

/** A parsed REST answer. */
export interface RestResponse<T> {
  readonly body: T;
}

/** Body, headers and a name for the counts of one REST call. */
export interface RequestOptions {
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** A name for the call in `stats.calls` (e.g. `query`, `composite`). */
  readonly operation?: string;
}

/** What the connection did so far: calls per operation, retries, refreshes. */
export interface ConnectionStats {
  readonly calls: Record<string, number>;
  retries: number;
  refreshes: number;
}

/** The connecting user and their org, from the identity service. */
export interface Identity {
  readonly organizationId: string;
  readonly userId: string;
  readonly username: string | undefined;
  readonly displayName: string | undefined;
}

/** A component's result of a Metadata `upsert`/`update` call. */
export interface SaveResult {
  readonly fullName: string;
  readonly success: boolean;
  /** `UpsertResult.created`; null for `update`, whose `SaveResult` has none. */
  readonly created: boolean | null;
  readonly errors: readonly { statusCode: string; message: string; fields: readonly string[] }[];
}

/** `api-usage=18/5000` -> { used: 18, max: 5000 } */
export function parseLimitInfo(header: string | null): ApiUsage | undefined {
  const match = header && /api-usage=(\d+)\/(\d+)/.exec(header);
  return match ? { used: Number(match[1]), max: Number(match[2]) } : undefined;
}

/** userinfo's answer to an expired token: 403 with this body, not INVALID_SESSION_ID. */
const BAD_OAUTH_TOKEN = /Bad_OAuth_Token/;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * jsforce aborts a call at its timeout with a DOMException named AbortError.
 */
const timedOut = (thrown: unknown) =>
  thrown instanceof Error && (thrown.name === 'AbortError' || thrown.name === 'TimeoutError');

/**
 * A further page of a query (`/query/<locator>`). A locator is used once, so a page that timed
 * out is not asked for again: the read fails and its next run restarts from its watermark.
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_querymore_querylocator.htm
 */
const LOCATOR_PAGE = /\/query\/[\w-]+$/;

/** Which failed calls `#send` may send again besides `UNABLE_TO_LOCK_ROW`. */
interface Resend {
  /** A call with a body jsforce cannot resend, safe to repeat: resent when unavailable (503). */
  readonly body: boolean;
  /** Safe to send twice: resent when the connection closed before any answer came. */
  readonly safeToResend: boolean;
  /** A GET: sent once more when it timed out. */
  readonly read?: boolean;
}

/**
 * A connection to one org, through a jsforce `Connection`: REST, Tooling and Metadata calls with
 * retries, session refresh and API usage. It sends GET, POST and PATCH only, never DELETE. Made by
 * `connect()`.
 */
export class SalesforceConnection {
  readonly apiVersion: string;
  readonly retryPolicy: RetryPolicy;
  /** How long one REST call waits for an answer, in ms. */
  readonly requestTimeoutMs: number;
  readonly stats: ConnectionStats = { calls: {}, retries: 0, refreshes: 0 };
  /** The org's API usage as last reported (`Sforce-Limit-Info`), if any call reported it. */
  usage: ApiUsage | undefined;
  /**
   * How far the org's clock is ahead of this machine's, in ms (within about a second), from the
   * `Date` header of the latest answer (REST or Bulk API); undefined before any answer.
   */
  clockOffset: number | undefined;
  /** The jsforce `Connection` every call goes through (e.g. for its Bulk API). */
  readonly jsforce: JsforceConnection;
  /** Renews the session of a connection made from tokens; undefined over the caller's jsforce. */
  readonly #renewal: SessionRenewal | undefined;

  constructor(source: ConnectionOptions | JsforceConnection, options: TransportOptions = {}) {
    const retry = 'request' in source ? options.retry : (source as ConnectionOptions).retry;
    this.retryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 20_000, ...retry };
    const transportOptions = 'request' in source ? options : (source as ConnectionOptions);
    this.requestTimeoutMs = transportOptions.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    if ('request' in source) {
      this.jsforce = source;
      this.apiVersion = source.version;
    } else {
      if (!source.instanceUrl || !source.accessToken) {
        throw new SalesforceError(
          'invalid_options',
          'A connection needs an instance URL and an access token',
        );
      }
      this.apiVersion = source.apiVersion ?? DEFAULT_API_VERSION;
      const client = source.clientId
        ? {
            clientId: source.clientId,
            clientSecret: source.clientSecret,
            loginUrl: source.loginUrl,
          }
        : undefined;
      const renewal = new SessionRenewal(this, source.refreshToken, client, source.onRefresh);
      this.#renewal = renewal;
      this.jsforce = tokenConnection({
        // Tokens go to the instance: never over plain http to another machine.
        instanceUrl: requireSecureUrl(source.instanceUrl, 'Instance URL').replace(/\/+$/, ''),
        accessToken: source.accessToken,
        refreshToken: source.refreshToken,
        client,
        apiVersion: this.apiVersion,
        renew: () => renewal.renew(),
      });
    }
    if (!/^\d+\.\d$/.test(this.apiVersion)) {
      throw new SalesforceError(
        'invalid_options',
        `API version ${this.apiVersion} is not like 59.0`,
      );
    }
    this.jsforce.on('refresh', () => {
      this.stats.refreshes += 1;
    });
  }

  get instanceUrl(): string {
    return this.jsforce.instanceUrl.replace(/\/+$/, '');
  }

  /** The current access token (after any refresh), e.g. to store it for the next run. */
  get accessToken(): string {
    return this.jsforce.accessToken ?? '';
  }

  /** The refresh token held for a connection made from tokens (the latest, if rotated). */
  get refreshToken(): string | undefined {
    return this.#renewal?.refreshToken;
  }

  /** Total API calls made through this connection (token calls excluded). */
  get totalCalls(): number {
    return Object.entries(this.stats.calls)
      .filter(([operation]) => operation !== 'token')
      .reduce((sum, [, n]) => sum + n, 0);
  }

  /**
   * A REST call (path from the version root, from `/services/`, or an identity URL) through
   * jsforce; non-2xx answers throw `SalesforceError`.
   */
  async rest<T = unknown>(
    method: HttpMethod,
    path: string,
    options: RequestOptions = {},
  ): Promise<RestResponse<T>> {
    if (!METHODS.includes(method)) {
      throw new SalesforceError(
        'invalid_options',
        `${String(method)} is not sent: the service never deletes or replaces records`,
      );
    }
    // jsforce resolves paths outside /services/ against the version root: identity URLs too.
    const url = path.startsWith('/id/') ? `${this.instanceUrl}${path}` : path;
    const label = `${method} ${new URL(url, 'http://org').pathname}`;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const request = {
      method,
      url,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...options.headers,
      },
      ...(body === undefined ? {} : { body }),
    };
    // jsforce retries 5xx answers and network errors of a GET; it cannot resend a body, so an
    // unavailable PATCH (idempotent here) is retried by #send. A POST (create) is never resent.
    // jsforce's error keeps Salesforce's errorCode but not the HTTP status: noted here.
    let status: number | undefined;
    const transport = {
      retry: {
        maxRetries: this.retryPolicy.maxRetries,
        minTimeout: this.retryPolicy.baseDelayMs,
        methods: ['GET'],
      },
      timeout: this.requestTimeoutMs,
      ...this.#datedTransport((answered) => (status = answered)),
    };
    const parsed = await this.#send(
      label,
      options.operation ?? 'rest',
      { body: method === 'PATCH', safeToResend: method !== 'POST', read: method === 'GET' },
      () =>
        Promise.resolve(this.jsforce.request<T>(request, transport)).catch(
          withStatus(() => status),
        ),
    );
    return { body: parsed };
  }

  /**
   * A Metadata API `upsertMetadata` or `updateMetadata` call through jsforce, which builds the
   * envelope with the current session and parses the `SaveResult`s. One result per component.
   */
  async metadata(
    operation: 'upsert' | 'update',
    type: string,
    components: readonly object[],
  ): Promise<SaveResult[]> {
    const results = await this.#send(
      `POST /services/Soap/m/${this.apiVersion} ${operation}Metadata`,
      `metadata:${operation}Metadata`,
      { body: true, safeToResend: false },
      () => metadataApi(this.jsforce)[operation](type, [...components]),
    );
    return asArray(results as JsforceSaveResult | JsforceSaveResult[]).map((r) => ({
      fullName: r.fullName,
      success: r.success === true || String(r.success) === 'true',
      created: r.created === undefined ? null : r.created === true || String(r.created) === 'true',
      errors: asArray(r.errors).map((e) => ({
        statusCode: e.statusCode ?? '',
        message: e.message ?? '',
        fields: asArray(e.fields),
      })),
    }));
  }

  /**
   * A Metadata API `readMetadata` call: the components named `fullNames` as the org holds them
   * (those it lacks are left out). A read, so safe to send again.
   */
  async readMetadata(
    type: string,
    fullNames: readonly string[],
  ): Promise<Record<string, unknown>[]> {
    const records = await this.#send(
      `POST /services/Soap/m/${this.apiVersion} readMetadata`,
      'metadata:readMetadata',
      { body: true, safeToResend: true },
      () => metadataApi(this.jsforce).read(type, [...fullNames]),
    );
    return asArray(records as Record<string, unknown> | Record<string, unknown>[]).filter(
      (r) => typeof r?.fullName === 'string',
    );
  }

  /**
   * A call through another of jsforce's APIs over this connection (its Bulk API 2.0 job
   * classes): counted in `stats.calls` under `operation`, failing with a `SalesforceError`.
   * Nothing is resent but a call refused with `UNABLE_TO_LOCK_ROW` and, when `safeToResend` (a
   * read, or the creation of a job that holds nothing yet), one whose connection the server
   * closed before answering.
   */
  async call<T>(
    label: string,
    operation: string,
    call: () => PromiseLike<T>,
    options: { readonly safeToResend?: boolean } = {},
  ): Promise<T> {
    return this.#send(
      label,
      operation,
      { body: false, safeToResend: options.safeToResend === true },
      call,
    );
  }

  /**
   * The connecting user's org and user ids: from the identity URL, or OpenID userinfo. An
   * expired token gets 403 `Bad_OAuth_Token` there, which jsforce does not take for an expired
   * session: one REST call (`/limits`) lets the connection refresh it, then userinfo is asked again.
   */
  async identity(identityUrl?: string): Promise<Identity> {
    const ask = () =>
      this.rest<{
        organization_id: string;
        user_id: string;
        username?: string;
        preferred_username?: string;
        display_name?: string;
        name?: string;
      }>('GET', identityUrl ?? '/services/oauth2/userinfo', { operation: 'identity' });
    const { body } = await ask().catch(async (error: unknown) => {
      if (!(error instanceof SalesforceError) || !BAD_OAUTH_TOKEN.test(error.message)) throw error;
      await this.limits();
      return ask();
    });
    return {
      organizationId: body.organization_id,
      userId: body.user_id,
      username: body.username ?? body.preferred_username,
      displayName: body.display_name ?? body.name,
    };
  }

  /** The org's daily API usage from `/limits` (also updates `usage`). */
  async limits(): Promise<ApiUsage> {
    const { body } = await this.rest<{ DailyApiRequests: { Max: number; Remaining: number } }>(
      'GET',
      '/limits',
      { operation: 'limits' },
    );
    this.usage = {
      max: body.DailyApiRequests.Max,
      used: body.DailyApiRequests.Max - body.DailyApiRequests.Remaining,
    };
    return this.usage;
  }

  /**
   * One call with our own retries: `UNABLE_TO_LOCK_ROW` (a per-record contention jsforce does
   * not know) and the concurrent request limit; for calls with a body that may be sent again
   * (PATCH, Metadata), an unavailable server; for calls safe to send twice, a connection the
   * server closed before answering.
   */
  async #send<T>(
    label: string,
    operation: string,
    resend: Resend,
    call: () => PromiseLike<T>,
  ): Promise<T> {
    for (let retry = 0; ; retry++) {
      this.stats.calls[operation] = (this.stats.calls[operation] ?? 0) + 1;
      let error: SalesforceError;
      try {
        const result = await call();
        this.#readUsage();
        return result;
      } catch (thrown) {
        this.#readUsage();
        if (timedOut(thrown)) {
          // A read is sent once more (but no query locator, which is used once); a write's
          // answer is lost: its caller looks for it in the org before sending it again.
          if (resend.read && retry === 0 && !LOCATOR_PAGE.test(label)) continue;
          throw new SalesforceError(
            'network',
            `${label}: the org did not answer within ${this.requestTimeoutMs / 1000} s (the request timeout)`,
            { request: label },
            { cause: thrown },
          );
        }
        error = classifyFailure(label, thrown, {
          usage: this.usage,
          refreshError: this.#renewal?.failure,
        });
      }
      const unavailable =
        resend.body && (error.status === 503 || error.errorCode === 'SERVER_UNAVAILABLE');
      const closed = resend.safeToResend && closedBeforeAnswer(error);
      // Refused before it was processed: safe to send again whatever the call.
      const busy = error instanceof SalesforceApiLimitError && error.limit === 'concurrent';
      const retryable = error.errorCode === 'UNABLE_TO_LOCK_ROW' || unavailable || closed || busy;
      if (!retryable || retry >= this.retryPolicy.maxRetries) throw error;
      await this.backoff(retry);
    }
  }

  /**
   * jsforce's HTTP transport for one request, noting the answer's `Date` header in
   * `clockOffset` (the connection's own transport is left as it is: it may be the caller's).
   */
  #datedTransport(onStatus?: (status: number) => void): { transport?: Transport } {
    const base = (this.jsforce as { _transport?: Transport })._transport;
    if (!base) return {};
    const transport = Object.create(base) as Transport;
    transport.httpRequest = (request, options) => {
      const sent = base.httpRequest(request, options);
      // A failed request is the caller's to handle, through the promise it was handed.
      sent.then((response) => {
        this.noteDate(response?.headers?.date);
        if (response?.statusCode) onStatus?.(response.statusCode);
      }, ignore);
      return sent;
    };
    return { transport };
  }

  /** Notes an answer's `Date` header (the org's clock) in `clockOffset`. */
  noteDate(header: string | undefined): void {
    const date = Date.parse(header ?? '');
    if (Number.isNaN(date)) return;
    // The header is in whole seconds: the org's time is in [date, date + 1 s). The offset is
    // the one nearest zero that fits, so clocks that agree are taken to agree.
    const now = Date.now();
    this.clockOffset = Math.min(0, date + 1000 - now) + Math.max(0, date - now);
  }

  #readUsage(): void {
    const usage = this.jsforce.limitInfo?.apiUsage;
    if (usage) this.usage = { used: usage.used, max: usage.limit };
  }

  /** Waits before our retry number `retry` (0-based): exponential with full jitter. */
  async backoff(retry: number): Promise<void> {
    this.stats.retries += 1;
    const exponential = Math.min(
      this.retryPolicy.maxDelayMs,
      this.retryPolicy.baseDelayMs * 2 ** retry,
    );
    await sleep(Math.random() * exponential);
  }
}

/**
 * A connection from tokens you hold, or over a jsforce `Connection` you already have (jsforce 3,
 * `@jsforce/jsforce-node`, `@salesforce/core`): every call then goes through it, and its own
 * refresh handler renews the session. No network call is made until the first request.
 */
export function connect(options: ConnectionOptions): SalesforceConnection;
export function connect(
  connection: JsforceConnection,
  options?: TransportOptions,
): SalesforceConnection;
export function connect(
  source: ConnectionOptions | JsforceConnection,
  options: TransportOptions = {},
): SalesforceConnection {
  return new SalesforceConnection(source, options);
}
