/**
 * OAuth 2.0 web server flow against a Salesforce login host (production, sandbox or a custom
 * My Domain), with `state` and PKCE, through jsforce's OAuth2 client. Every scope the connected
 * app needs (docs/crm-sync/salesforce-setup.md, "The connected app") is requested at connect time.
 */
import { randomBytes } from 'node:crypto';
// The OAuth2 module alone: the package index would load every jsforce API (bulk, streaming...).
import { OAuth2 } from '@jsforce/jsforce-node/lib/oauth2.js';
import { SalesforceError } from '../errors.js';
import { hostText } from './host-text.js';
import { requireSecureUrl } from './secure-url.js';

/** The six OAuth scopes, all requested at connect time. */
export const SCOPES = ['api', 'sfap_api', 'id', 'refresh_token', 'full', 'openid'] as const;

/** The login hosts of production orgs and sandboxes. */
export const LOGIN_HOSTS = {
  production: 'https://login.salesforce.com',
  sandbox: 'https://test.salesforce.com',
} as const;

/**
 * The login URL for `production`, `sandbox`, or a custom host (`acme.my.salesforce.com` or a
 * full `https://` URL). Plain `http://` is accepted for loopback hosts only (tests, emulators).
 */
export function resolveLoginUrl(
  login: 'production' | 'sandbox' | (string & {}) = 'production',
): string {
  if (login === 'production') return LOGIN_HOSTS.production;
  if (login === 'sandbox') return LOGIN_HOSTS.sandbox;
  const url = /^[a-z]+:\/\//i.test(login) ? login : `https://${login}`;
  return new URL(requireSecureUrl(url, 'Login host')).origin;
}

/** The connected app: consumer key, and secret when it requires one. */
export interface OAuthClient {
  /** Consumer key of the connected app. */
  readonly clientId: string;
  /** Consumer secret, when the connected app requires one for the web server flow. */
  readonly clientSecret?: string | undefined;
  /** `production` (default), `sandbox`, or a custom My Domain login host. */
  readonly loginUrl?: string | undefined;
}

/** A started login: the URL to open, and what to keep until the callback. */
export interface AuthorizationRequest {
  /** Where to send the user's browser. */
  readonly url: string;
  /** Compare with the `state` the callback receives before exchanging the code. */
  readonly state: string;
  /** Keep it (server side) until the code exchange. */
  readonly codeVerifier: string;
  readonly redirectUri: string;
  readonly loginUrl: string;
}

function oauth2(client: OAuthClient, redirectUri?: string, codeVerifier?: string): OAuth2 {
  const oauth = new OAuth2({
    clientId: client.clientId,
    ...(client.clientSecret ? { clientSecret: client.clientSecret } : {}),
    ...(redirectUri ? { redirectUri } : {}),
    loginUrl: resolveLoginUrl(client.loginUrl),
  });
  if (codeVerifier) oauth.codeVerifier = codeVerifier;
  return oauth;
}

/** Starts the web server flow: the authorize URL with all scopes, a fresh `state` and PKCE. */
export function createAuthorization(
  client: OAuthClient & { readonly redirectUri: string; readonly state?: string },
): AuthorizationRequest {
  const state = client.state ?? randomBytes(16).toString('base64url');
  const codeVerifier = randomBytes(64).toString('base64url');
  const url = oauth2(client, client.redirectUri, codeVerifier).getAuthorizationUrl({
    scope: SCOPES.join(' '),
    state,
  });
  return {
    url,
    state,
    codeVerifier,
    redirectUri: client.redirectUri,
    loginUrl: resolveLoginUrl(client.loginUrl),
  };
}

/** What the token endpoint returns, in our names. */
export interface TokenSet {
  readonly accessToken: string;
  /** Present after the code exchange, and after a refresh when the connected app rotates refresh tokens. */
  readonly refreshToken?: string;
  readonly instanceUrl: string;
  /** The identity URL (`.../id/<orgId>/<userId>`). */
  readonly identityUrl: string;
  readonly scope?: string;
  readonly issuedAt?: string;
}

function toTokenSet(response: {
  access_token: string;
  refresh_token?: string;
  instance_url: string;
  id: string;
  scope?: string;
  issued_at?: string;
}): TokenSet {
  return {
    accessToken: response.access_token,
    ...(response.refresh_token ? { refreshToken: response.refresh_token } : {}),
    instanceUrl: response.instance_url,
    identityUrl: response.id,
    ...(response.scope ? { scope: response.scope } : {}),
    ...(response.issued_at ? { issuedAt: response.issued_at } : {}),
  };
}

/** jsforce throws an Error whose `name` is the OAuth `error` and whose message is its description. */
function toAuthError(error: unknown, what: string): SalesforceError {
  const e = error as Error;
  const oauthError = e.name && e.name !== 'Error' ? hostText(e.name) : undefined;
  const description = e.message ? hostText(e.message) : '';
  return new SalesforceError(
    'auth_failed',
    `${what} failed: ${oauthError ?? 'network error'}${description ? ` (${description})` : ''}`,
    {
      ...(oauthError ? { errorCode: oauthError } : {}),
      body: { error: oauthError, error_description: e.message },
    },
    { cause: error },
  );
}

/**
 * Completes the web server flow. Pass the `state` the callback received: it must equal the one
 * of the authorization request.
 */
export async function exchangeCode(
  client: OAuthClient,
  authorization: Pick<AuthorizationRequest, 'state' | 'codeVerifier' | 'redirectUri'>,
  callback: { readonly code: string; readonly state: string | null },
): Promise<TokenSet> {
  if (callback.state !== authorization.state) {
    throw new SalesforceError(
      'auth_failed',
      'The OAuth callback carried a different state than the request: start the login again',
    );
  }
  try {
    const response = await oauth2(
      client,
      authorization.redirectUri,
      authorization.codeVerifier,
    ).requestToken(callback.code);
    return toTokenSet(response);
  } catch (error) {
    throw toAuthError(error, 'The code exchange');
  }
}

/** One refresh-token grant (no retry: the connection adds the retries it needs). */
export async function requestRefresh(client: OAuthClient, refreshToken: string): Promise<TokenSet> {
  try {
    return toTokenSet(await oauth2(client).refreshToken(refreshToken));
  } catch (error) {
    throw toAuthError(error, 'The session refresh');
  }
}
