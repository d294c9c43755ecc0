/**
 * A connection to one org: REST (v59.0 by default), Tooling and Metadata SOAP calls with
 * retries (503, UNABLE_TO_LOCK_ROW, REQUEST_LIMIT_EXCEEDED; backoff with jitter and a ceiling),
 * one session refresh per expiry even under concurrent calls, and the org's API usage as
 * reported by `Sforce-Limit-Info`. Calls go through fetch directly: jsforce would retry and
 * refresh on its own terms, and the issue needs those behaviours exact.
 */
import { DEFAULT_API_VERSION } from '../metadata-requests.js';
import { type ApiUsage, redact, SalesforceApiLimitError, SalesforceError } from './errors.js';
import { type OAuthClient, requestRefresh } from './oauth.js';

export interface RetryPolicy {
  /** Retries after the first attempt (default 4). */
  readonly maxRetries: number;
  /** First backoff delay in ms, doubled per retry, with full jitter (default 500). */
  readonly baseDelayMs: number;
  /** Ceiling of one delay in ms (default 20 000). */
  readonly maxDelayMs: number;
}

export interface ConnectionOptions {
  readonly instanceUrl: string;
  readonly accessToken: string;
  /** With `clientId`, lets the connection refresh an expired session by itself. */
  readonly refreshToken?: string | undefined;
  readonly clientId?: string | undefined;
  readonly clientSecret?: string | undefined;
  /** Login host for refreshes: `production` (default), `sandbox` or a custom My Domain. */
  readonly loginUrl?: string | undefined;
  /** REST API version, default `59.0`. */
  readonly apiVersion?: string | undefined;
  readonly retry?: Partial<RetryPolicy> | undefined;
  /** Called with the new access token after each refresh (store it to reuse it next run). */
  readonly onRefresh?:
    | ((session: { accessToken: string; instanceUrl: string }) => void | Promise<void>)
    | undefined;
}

/** The methods the connection sends. There is no DELETE: the service never deletes records. */
export type HttpMethod = 'GET' | 'POST' | 'PATCH';
const METHODS: readonly string[] = ['GET', 'POST', 'PATCH'];

export interface RestResponse<T> {
  readonly status: number;
  readonly body: T;
  readonly headers: Headers;
}

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

export interface Identity {
  readonly organizationId: string;
  readonly userId: string;
  readonly username: string | undefined;
  readonly displayName: string | undefined;
}

/** `api-usage=18/5000` -> { used: 18, max: 5000 } */
export function parseLimitInfo(header: string | null): ApiUsage | undefined {
  const match = header && /api-usage=(\d+)\/(\d+)/.exec(header);
  return match ? { used: Number(match[1]), max: Number(match[2]) } : undefined;
}

interface RestErrorEntry {
  message?: string;
  errorCode?: string;
  fields?: string[];
}

/** One answer as `#send` judges it: the error code and entry that describe a failure, if any. */
interface Attempt {
  res: Response;
  parsed: unknown;
  errorCode: string | undefined;
  entry: RestErrorEntry | undefined;
}

const RETRYABLE_CODES = new Set([
  'UNABLE_TO_LOCK_ROW',
  'REQUEST_LIMIT_EXCEEDED',
  'SERVER_UNAVAILABLE',
]);
const CONCURRENT_REFRESH = /already being processed/i;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export class SalesforceConnection {
  readonly apiVersion: string;
  readonly retryPolicy: RetryPolicy;
  readonly stats: ConnectionStats = { calls: {}, retries: 0, refreshes: 0 };
  /** The org's API usage as last reported (`Sforce-Limit-Info`), if any call reported it. */
  usage: ApiUsage | undefined;
  #instanceUrl: string;
  #accessToken: string;
  readonly #refreshToken: string | undefined;
  readonly #client: OAuthClient | undefined;
  readonly #onRefresh: ConnectionOptions['onRefresh'];
  #refreshing: Promise<void> | undefined;

  constructor(options: ConnectionOptions) {
    if (!options.instanceUrl || !options.accessToken) {
      throw new SalesforceError(
        'invalid_options',
        'A connection needs an instance URL and an access token',
      );
    }
    this.#instanceUrl = options.instanceUrl.replace(/\/+$/, '');
    this.#accessToken = options.accessToken;
    this.#refreshToken = options.refreshToken;
    this.#client = options.clientId
      ? {
          clientId: options.clientId,
          clientSecret: options.clientSecret,
          loginUrl: options.loginUrl,
        }
      : undefined;
    this.apiVersion = options.apiVersion ?? DEFAULT_API_VERSION;
    if (!/^\d+\.\d$/.test(this.apiVersion)) {
      throw new SalesforceError(
        'invalid_options',
        `API version ${this.apiVersion} is not like 59.0`,
      );
    }
    this.retryPolicy = { maxRetries: 4, baseDelayMs: 500, maxDelayMs: 20_000, ...options.retry };
    this.#onRefresh = options.onRefresh;
  }

  get instanceUrl(): string {
    return this.#instanceUrl;
  }

  /** The current access token (after any refresh), e.g. to store it for the next run. */
  get accessToken(): string {
    return this.#accessToken;
  }

  /** Total API calls made through this connection (token calls excluded). */
  get totalCalls(): number {
    return Object.values(this.stats.calls).reduce((a, b) => a + b, 0);
  }

  /** Absolute URL for a path relative to `/services/data/vXX.X`, a `/services/...` path or a URL. */
  url(path: string): string {
    if (/^https?:\/\//.test(path)) return path;
    if (path.startsWith('/services/') || path.startsWith('/id/'))
      return `${this.#instanceUrl}${path}`;
    return `${this.#instanceUrl}/services/data/v${this.apiVersion}${path.startsWith('/') ? '' : '/'}${path}`;
  }

  /** A REST call with retries and session refresh; non-2xx answers throw `SalesforceError`. */
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
    const url = this.url(path);
    const label = `${method} ${new URL(url).pathname}`;
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const response = await this.#send(label, options.operation ?? 'rest', async (token) => {
      const res = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${token}`,
          accept: 'application/json',
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
          ...options.headers,
        },
        ...(body === undefined ? {} : { body }),
      });
      const text = await res.text();
      let parsed: unknown = text;
      if (text && (res.headers.get('content-type') ?? '').includes('json')) {
        try {
          parsed = JSON.parse(text);
        } catch {
          parsed = text;
        }
      }
      const entry = Array.isArray(parsed) ? (parsed[0] as RestErrorEntry | undefined) : undefined;
      return { res, parsed, errorCode: res.ok ? undefined : entry?.errorCode, entry };
    });
    return {
      status: response.res.status,
      body: response.parsed as T,
      headers: response.res.headers,
    };
  }

  /**
   * A Metadata API SOAP call. `envelope(sessionId)` builds the request; it is called again
   * after a refresh so the retried envelope carries the new session.
   */
  async metadata(operation: string, envelope: (sessionId: string) => string): Promise<string> {
    const url = `${this.#instanceUrl}/services/Soap/m/${this.apiVersion}`;
    const response = await this.#send(
      `POST /services/Soap/m/${this.apiVersion} ${operation}`,
      `metadata:${operation}`,
      async (token) => {
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'text/xml; charset=utf-8', soapaction: '""' },
          body: envelope(token),
        });
        const text = await res.text();
        const faultCode = /<faultcode>(?:[\w-]+:)?([^<]+)<\/faultcode>/.exec(text)?.[1];
        const faultString = /<faultstring>([^<]*)<\/faultstring>/.exec(text)?.[1];
        return {
          res,
          parsed: text,
          errorCode: faultCode ?? (res.ok ? undefined : `HTTP_${res.status}`),
          entry: faultString
            ? { message: faultString, ...(faultCode ? { errorCode: faultCode } : {}) }
            : undefined,
        };
      },
    );
    return response.parsed as string;
  }

  /** The connecting user's org and user ids: from the identity URL, or OpenID userinfo. */
  async identity(identityUrl?: string): Promise<Identity> {
    const { body } = await this.rest<{
      organization_id: string;
      user_id: string;
      username?: string;
      preferred_username?: string;
      display_name?: string;
      name?: string;
    }>('GET', identityUrl ?? '/services/oauth2/userinfo', { operation: 'identity' });
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

  async #send(
    label: string,
    operation: string,
    attempt: (token: string) => Promise<Attempt>,
  ): Promise<Attempt> {
    let refreshed = false;
    for (let retry = 0; ; retry++) {
      const token = this.#accessToken;
      let result: Attempt;
      this.stats.calls[operation] = (this.stats.calls[operation] ?? 0) + 1;
      try {
        result = await attempt(token);
      } catch (error) {
        if (retry < this.retryPolicy.maxRetries && !label.startsWith('POST')) {
          await this.backoff(retry, null);
          continue;
        }
        throw new SalesforceError(
          'network',
          `${label} could not reach the org: ${(error as Error).message}`,
          { request: label },
          { cause: error },
        );
      }
      const usage = parseLimitInfo(result.res.headers.get('sforce-limit-info'));
      if (usage) this.usage = usage;
      if (result.res.ok && result.errorCode === undefined) return result;
      if (result.errorCode === 'INVALID_SESSION_ID' && !refreshed) {
        refreshed = true;
        await this.#refresh(token);
        retry--; // a refresh is not a retry
        continue;
      }
      const retryable = result.res.status === 503 || RETRYABLE_CODES.has(result.errorCode ?? '');
      if (retryable && retry < this.retryPolicy.maxRetries) {
        await this.backoff(retry, result.res.headers.get('retry-after'));
        continue;
      }
      throw this.#error(label, result);
    }
  }

  #error(label: string, result: Attempt): SalesforceError {
    const { res, errorCode, entry } = result;
    const what = entry?.message?.trim().split('\n').pop() ?? `HTTP ${res.status}`;
    const details = {
      status: res.status,
      ...(errorCode ? { errorCode } : {}),
      ...(entry?.fields ? { fields: entry.fields } : {}),
      request: label,
      body: result.parsed,
    };
    if (errorCode === 'REQUEST_LIMIT_EXCEEDED') {
      return new SalesforceApiLimitError(
        `${label}: the org's API request limit is reached (${what}). Salesforce counts requests over a rolling 24 hours: run again later; the work done so far is kept.`,
        this.usage,
        details,
      );
    }
    if (errorCode === 'INVALID_SESSION_ID') {
      return new SalesforceError(
        'session_expired',
        `${label}: the session expired and could not be refreshed. Log in again.`,
        details,
      );
    }
    const code = label.includes('/services/Soap/') ? 'soap_fault' : 'request_failed';
    return new SalesforceError(
      code,
      `${label} failed: ${errorCode ?? res.status} ${what}`,
      details,
    );
  }

  /** Waits before retry number `retry` (0-based): exponential with full jitter, or Retry-After. */
  async backoff(retry: number, retryAfter: string | null = null): Promise<void> {
    this.stats.retries += 1;
    const exponential = Math.min(
      this.retryPolicy.maxDelayMs,
      this.retryPolicy.baseDelayMs * 2 ** retry,
    );
    const seconds = retryAfter === null ? Number.NaN : Number(retryAfter);
    const delay = Number.isFinite(seconds)
      ? Math.min(this.retryPolicy.maxDelayMs, seconds * 1000)
      : Math.random() * exponential;
    await sleep(delay);
  }

  /** Refreshes once per expiry: concurrent callers that failed with the same token share one refresh. */
  async #refresh(failedToken: string): Promise<void> {
    if (this.#accessToken !== failedToken) return; // another call already refreshed
    this.#refreshing ??= this.#doRefresh().finally(() => {
      this.#refreshing = undefined;
    });
    await this.#refreshing;
  }

  async #doRefresh(): Promise<void> {
    if (!this.#refreshToken || !this.#client) {
      throw new SalesforceError(
        'session_expired',
        'The session expired and the connection has no refresh token and client id to renew it. Log in again.',
      );
    }
    for (let attempt = 0; ; attempt++) {
      try {
        this.stats.calls.token = (this.stats.calls.token ?? 0) + 1;
        const tokens = await requestRefresh(this.#client, this.#refreshToken);
        this.#accessToken = tokens.accessToken;
        this.#instanceUrl = tokens.instanceUrl.replace(/\/+$/, '');
        this.stats.refreshes += 1;
        await this.#onRefresh?.({
          accessToken: tokens.accessToken,
          instanceUrl: this.#instanceUrl,
        });
        return;
      } catch (error) {
        const concurrent =
          error instanceof SalesforceError &&
          error.errorCode === 'invalid_grant' &&
          CONCURRENT_REFRESH.test(error.message);
        if (concurrent && attempt < this.retryPolicy.maxRetries) {
          await this.backoff(attempt, null);
          continue;
        }
        if (error instanceof SalesforceError) {
          throw new SalesforceError('session_expired', `${redact(error.message)}. Log in again.`, {
            ...(error.errorCode ? { errorCode: error.errorCode } : {}),
            body: error.body,
          });
        }
        throw error;
      }
    }
  }
}

/** A connection from tokens you hold (no network call is made until the first request). */
export function connect(options: ConnectionOptions): SalesforceConnection {
  return new SalesforceConnection(options);
}
