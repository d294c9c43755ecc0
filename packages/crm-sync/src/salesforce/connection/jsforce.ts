/**
 * The transport: a jsforce `Connection`. Either the caller's own (jsforce 3,
 * `@jsforce/jsforce-node`, or `@salesforce/core`'s `Connection`, which extends it), described
 * here by the few members this package uses, or one made from tokens by `tokenConnection`.
 */
// The Connection and Metadata modules alone: the package index would load every jsforce API.
// jsforce's module first: its connection module and it require each other, and entering the cycle
// at the connection leaves jsforce's exported `Connection` undefined for every later importer
// (the caller's `import { Connection } from 'jsforce'`, @salesforce/core's `class extends`).
import '@jsforce/jsforce-node/lib/jsforce.js';
import { Connection } from '@jsforce/jsforce-node/lib/connection.js';
import { setDefaults } from '@jsforce/jsforce-node/lib/request.js';
import '@jsforce/jsforce-node/lib/api/metadata.js';
import { type OAuthClient, resolveLoginUrl } from '../auth/oauth.js';
import { SalesforceError } from '../errors.js';

/** One HTTP call as jsforce's `Connection.request` takes it. */
export interface JsforceRequest {
  readonly method: 'GET' | 'POST' | 'PATCH';
  /** Absolute, from the instance root (`/services/...`), or from the version root (`/sobjects`). */
  readonly url: string;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

/** A Metadata API `SaveResult`/`UpsertResult` as jsforce parses it. */
export interface JsforceSaveResult {
  readonly fullName: string;
  readonly success: boolean;
  readonly created?: boolean;
  readonly errors?:
    | { statusCode?: string; message?: string; fields?: string | string[] }
    | { statusCode?: string; message?: string; fields?: string | string[] }[]
    | null;
}

/**
 * The members of a jsforce `Connection` this package uses: any jsforce 3 connection (including
 * `@salesforce/core`'s `Connection` of an `sf` CLI login) has them. Its refresh handler renews
 * an expired session as it always does.
 */
export interface JsforceConnection {
  readonly instanceUrl: string;
  readonly accessToken?: string | null | undefined;
  /** API version of every call, e.g. `59.0`. */
  readonly version: string;
  /** Updated by jsforce from each response's `Sforce-Limit-Info`. */
  readonly limitInfo?:
    | { readonly apiUsage?: { readonly used: number; readonly limit: number } | undefined }
    | undefined;
  /** Sends a REST or Tooling request. */
  request<R = unknown>(request: JsforceRequest, options?: object): PromiseLike<R>;
  readonly metadata: {
    /** Metadata API `upsertMetadata`. */
    upsert(type: string, metadata: object[]): PromiseLike<unknown>;
    /** Metadata API `updateMetadata`. */
    update(type: string, metadata: object[]): PromiseLike<unknown>;
    /** Metadata API `readMetadata`: the components as the org holds them. */
    read(type: string, fullNames: string[]): PromiseLike<unknown>;
  };
  /** Listens for jsforce's session refresh; the listener gets the new access token. */
  on(event: 'refresh', listener: (accessToken: string) => void): unknown;
}

/** What a refresh gives: the new session, and the refresh token to keep (rotated or not). */
export interface RenewedSession {
  readonly accessToken: string;
  readonly instanceUrl: string;
  readonly refreshToken: string | undefined;
}

/**
 * A jsforce `Connection` from tokens we hold. `renew` replaces jsforce's own OAuth refresh
 * function, which drops a rotated refresh token and gives up on Salesforce's "token request is
 * already being processed".
 */
export function tokenConnection(options: {
  readonly instanceUrl: string;
  readonly accessToken: string;
  readonly refreshToken: string | undefined;
  readonly client: OAuthClient | undefined;
  readonly apiVersion: string;
  readonly renew: () => Promise<RenewedSession>;
}): JsforceConnection {
  const loginUrl = resolveLoginUrl(options.client?.loginUrl);
  const connection = new Connection({
    instanceUrl: options.instanceUrl,
    accessToken: options.accessToken,
    version: options.apiVersion,
    loginUrl,
    refreshFn: (conn, callback) => {
      options.renew().then(
        (session) => {
          conn.instanceUrl = session.instanceUrl;
          conn.refreshToken = session.refreshToken;
          callback(null, session.accessToken);
        },
        (error: unknown) => callback(error as Error),
      );
    },
  });
  if (options.refreshToken) connection.refreshToken = options.refreshToken;
  return connection as unknown as JsforceConnection;
}

/**
 * A timeout for every call jsforce makes in this process (the Metadata and Bulk APIs too, whose
 * calls take no options of ours). jsforce's defaults are replaced whole, so its others are set as
 * its transport sets them: the proxy from the environment, redirects followed.
 */
export function setProcessRequestTimeout(ms: number): void {
  const { https_proxy, http_proxy, HTTPS_PROXY, HTTP_PROXY } = process.env;
  const httpProxy = https_proxy ?? http_proxy ?? HTTPS_PROXY ?? HTTP_PROXY;
  setDefaults({ ...(httpProxy ? { httpProxy } : {}), timeout: ms, followRedirect: true });
}

/** The `metadata` member, or a clear error when the caller's jsforce did not load that API. */
export function metadataApi(connection: JsforceConnection): JsforceConnection['metadata'] {
  try {
    return connection.metadata;
  } catch (error) {
    throw new SalesforceError(
      'invalid_options',
      `The connection has no Metadata API (${(error as Error).message}): import 'jsforce' (or '@jsforce/jsforce-node') whole, not only its Connection.`,
    );
  }
}
