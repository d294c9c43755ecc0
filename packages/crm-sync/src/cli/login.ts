/**
 * `service-crm login`: the OAuth web server flow through a loopback redirect. The command opens
 * the authorize URL in the user's browser (or only prints it with --no-browser); Salesforce
 * redirects to http://localhost:<port>/OauthRedirect, where this command checks `state`,
 * exchanges the code (PKCE), stores the tokens in a file only the user can read, and answers
 * the browser with a page saying what happened.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from '../salesforce/connection.js';
import {
  type AuthorizationRequest,
  createAuthorization,
  exchangeCode,
} from '../salesforce/oauth.js';
import { openBrowser } from './browser.js';
import { callbackPage, type LoginOutcome } from './callback-page.js';
import { saveTokens } from './credentials.js';
import { CliError, EXIT, type Io } from './output.js';

export interface LoginOptions {
  readonly clientId: string;
  readonly clientSecret?: string | undefined;
  readonly loginUrl?: string | undefined;
  /** Loopback port of the redirect (default 1717, as the callback URL registered in the app). */
  readonly port: number;
  readonly tokenFile: string;
  /** Open the authorize URL in the browser (false: only print it). */
  readonly openBrowser: boolean;
  /** Where `BROWSER` is read from. */
  readonly env?: NodeJS.ProcessEnv;
  /** Give up waiting for the browser after this many ms (default 5 minutes). */
  readonly timeoutMs?: number;
  /** Report the login as a JSON object on stdout. */
  readonly json?: boolean;
}

/** The callback's verdict: a code to exchange, or how the login ended without one. */
type Callback =
  | { readonly code: string }
  | { readonly outcome: LoginOutcome; readonly error: CliError };

/**
 * Reads the callback's query. A `state` other than the one sent ends the login before anything
 * else is looked at: the answer belongs to another login (a stale tab or a forged link).
 */
export function readCallback(params: URLSearchParams, expectedState: string): Callback {
  if (params.get('state') !== expectedState) {
    return {
      outcome: { kind: 'state-mismatch' },
      error: new CliError(
        EXIT.auth,
        'Login not completed: the browser came back with a state this login did not send (a stale tab or a forged link), so its code was not used. Run `service-crm login` again.',
      ),
    };
  }
  const error = params.get('error');
  // Salesforce's help page writes the web server flow's refusal as `access-denied`, the OAuth
  // standard (and the user-agent flow) as `access_denied`: both mean the user chose Deny.
  if (error === 'access_denied' || error === 'access-denied') {
    return {
      outcome: { kind: 'refused' },
      error: new CliError(
        EXIT.auth,
        'Login refused: you chose Deny on the Salesforce "Allow Access?" page, so nothing was saved. Run `service-crm login` again and choose Allow to connect.',
      ),
    };
  }
  const code = params.get('code');
  if (error || !code) {
    const description = params.get('error_description');
    const message = `Salesforce refused the login: ${error ?? 'no code in the answer'}${description ? ` (${description})` : ''}`;
    return { outcome: { kind: 'error', message }, error: new CliError(EXIT.auth, message) };
  }
  return { code };
}

export async function login(options: LoginOptions, io: Io): Promise<void> {
  const client = {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    loginUrl: options.loginUrl,
  };
  let authorization: AuthorizationRequest | undefined;
  let settle!: {
    resolve: (v: { code: string; response: ServerResponse }) => void;
    reject: (e: Error) => void;
  };
  const callback = new Promise<{ code: string; response: ServerResponse }>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/OauthRedirect' || !authorization) {
      res.writeHead(404).end();
      return;
    }
    const verdict = readCallback(url.searchParams, authorization.state);
    if ('code' in verdict) {
      settle.resolve({ code: verdict.code, response: res });
    } else {
      // The page first: the rejection closes the server.
      void answer(res, verdict.outcome).then(() => settle.reject(verdict.error));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (e) =>
      reject(
        new CliError(
          EXIT.usage,
          `Cannot listen on port ${options.port}: ${e.message}; pick another with --port`,
        ),
      ),
    );
    server.listen(options.port, '127.0.0.1', resolve);
  });
  const timer = setTimeout(
    () =>
      settle.reject(
        new CliError(
          EXIT.auth,
          'No answer from the browser in time: run `service-crm login` again',
        ),
      ),
    options.timeoutMs ?? 300_000,
  );
  try {
    const port = (server.address() as AddressInfo).port;
    authorization = createAuthorization({
      ...client,
      redirectUri: `http://localhost:${port}/OauthRedirect`,
    });
    await showAuthorizeUrl(authorization.url, options, io);
    const { code, response } = await callback;
    try {
      const tokens = await exchangeCode(client, authorization, {
        code,
        state: authorization.state,
      });
      const identity = await connect({
        instanceUrl: tokens.instanceUrl,
        accessToken: tokens.accessToken,
      }).identity(tokens.identityUrl);
      await saveTokens(options.tokenFile, {
        instanceUrl: tokens.instanceUrl,
        accessToken: tokens.accessToken,
        ...(tokens.refreshToken ? { refreshToken: tokens.refreshToken } : {}),
        clientId: options.clientId,
        ...(options.clientSecret ? { clientSecret: options.clientSecret } : {}),
        loginUrl: authorization.loginUrl,
        identityUrl: tokens.identityUrl,
        organizationId: identity.organizationId,
        userId: identity.userId,
      });
      const user = identity.username ?? identity.userId;
      await answer(response, { kind: 'approved', org: identity.organizationId, user });
      io.out(
        options.json
          ? JSON.stringify({
              organizationId: identity.organizationId,
              userId: identity.userId,
              username: identity.username,
              tokenFile: options.tokenFile,
            })
          : `Connected to org ${identity.organizationId} as ${user}; tokens saved to ${options.tokenFile} (readable by you only)`,
      );
    } catch (error) {
      await answer(response, { kind: 'error', message: (error as Error).message });
      throw error;
    }
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}

async function showAuthorizeUrl(url: string, options: LoginOptions, io: Io): Promise<void> {
  if (!options.openBrowser) {
    io.err('Open this URL in your browser to connect Salesforce:');
    io.err(url);
    return;
  }
  io.err('Opening your browser to connect Salesforce. If it does not open, visit this URL:');
  io.err(url);
  const failed = (reason: string) =>
    io.err(`Could not open a browser (${reason}): open the URL above yourself.`);
  await openBrowser(url, options.env, process.platform, failed).catch((error: Error) =>
    failed(error.message),
  );
}

/** Sends the page and waits until it is written, so closing the server cannot cut it off. */
function answer(response: ServerResponse, outcome: LoginOutcome): Promise<void> {
  const page = callbackPage(outcome);
  return new Promise((resolve) => {
    response.writeHead(page.status, {
      'content-type': 'text/html; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'close',
    });
    response.end(page.html, () => resolve());
  });
}
