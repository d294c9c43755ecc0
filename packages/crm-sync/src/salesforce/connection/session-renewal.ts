/**
 * Renewing an expired session of a connection made from tokens: the OAuth refresh token flow,
 * tried again while Salesforce is still processing another refresh of the same token, keeping the
 * new refresh token when the connected app rotates them.
 * https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_refresh_token_flow.htm&type=5
 */
import { type OAuthClient, requestRefresh } from '../auth/oauth.js';
import { refreshRefusal } from '../auth/refusals.js';
import { SalesforceError } from '../errors.js';
import type { RenewedSession } from './jsforce.js';

/** Salesforce's answer to a refresh while another refresh of the same token is processed. */
const CONCURRENT_REFRESH = /already being processed/i;

/** A session refreshed by the connection: store it (and the refresh token) for the next run. */
export interface RefreshedSession {
  readonly accessToken: string;
  readonly instanceUrl: string;
  /**
   * The refresh token to use from now on. With refresh-token rotation on the connected app it
   * is a new one and the old one is revoked: store it, or the next run cannot refresh.
   */
  readonly refreshToken?: string;
}

/** What a renewal needs of its connection: to count the token call and to wait between tries. */
export interface RenewalHost {
  readonly stats: { readonly calls: Record<string, number> };
  readonly retryPolicy: { readonly maxRetries: number };
  backoff(retry: number): Promise<void>;
}

/** The refresh token, connected app and callback of one connection, and why a renewal failed. */
export class SessionRenewal {
  #refreshToken: string | undefined;
  readonly #client: OAuthClient | undefined;
  readonly #onRefresh: ((session: RefreshedSession) => void | Promise<void>) | undefined;
  readonly #host: RenewalHost;
  /** Why the last renewal failed (jsforce hands back only its message). */
  failure: SalesforceError | undefined;

  constructor(
    host: RenewalHost,
    refreshToken: string | undefined,
    client: OAuthClient | undefined,
    onRefresh: ((session: RefreshedSession) => void | Promise<void>) | undefined,
  ) {
    this.#host = host;
    this.#refreshToken = refreshToken;
    this.#client = client;
    this.#onRefresh = onRefresh;
  }

  /** The refresh token held now (the latest, if rotated). */
  get refreshToken(): string | undefined {
    return this.#refreshToken;
  }

  /** jsforce's refresh function for a connection from tokens (jsforce runs one at a time). */
  async renew(): Promise<RenewedSession> {
    try {
      return await this.#requestRenewal();
    } catch (error) {
      this.failure =
        error instanceof SalesforceError
          ? error
          : new SalesforceError('session_expired', `${(error as Error).message}. Log in again.`);
      throw this.failure;
    }
  }

  async #requestRenewal(): Promise<RenewedSession> {
    if (!this.#refreshToken || !this.#client) {
      throw new SalesforceError(
        'session_expired',
        'The session expired and the connection has no refresh token and client id to renew it. Log in again.',
      );
    }
    const { stats, retryPolicy } = this.#host;
    for (let attempt = 0; ; attempt++) {
      try {
        stats.calls.token = (stats.calls.token ?? 0) + 1;
        const tokens = await requestRefresh(this.#client, this.#refreshToken);
        // With refresh-token rotation the answer carries a new one and the old one is revoked.
        if (tokens.refreshToken) this.#refreshToken = tokens.refreshToken;
        const session = {
          accessToken: tokens.accessToken,
          instanceUrl: tokens.instanceUrl.replace(/\/+$/, ''),
          refreshToken: this.#refreshToken,
        };
        await this.#onRefresh?.({
          accessToken: session.accessToken,
          instanceUrl: session.instanceUrl,
          ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
        });
        return session;
      } catch (error) {
        const concurrent =
          error instanceof SalesforceError &&
          error.errorCode === 'invalid_grant' &&
          CONCURRENT_REFRESH.test(error.message);
        if (concurrent && attempt < retryPolicy.maxRetries) {
          await this.#host.backoff(attempt);
          continue;
        }
        // A refusal names its reason; the remedy depends on it (an admin, or a new login).
        throw error instanceof SalesforceError ? refreshRefusal(error) : error;
      }
    }
  }
}
