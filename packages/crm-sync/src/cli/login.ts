/**
 * `service-crm login`: the OAuth web server flow through a loopback redirect. The command opens
 * a one-time local link, http://localhost:<port>/start?t=<random>, in the user's browser (or only
 * prints it with --no-browser), which redirects to the authorize URL: the URL with `state` and
 * the PKCE challenge never appears on a command line, where `ps` shows it to every user.
 * Salesforce redirects to http://localhost:<port>/OauthRedirect, where this command checks
 * `state`, exchanges the first code (PKCE), stores the tokens in a file only the user can read,
 * and answers the browser with a page saying what happened.
 */
import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { hostText } from '../salesforce/auth/host-text.js';
import {
  type AuthorizationRequest,
  createAuthorization,
  exchangeCode,
  type OAuthClient,
} from '../salesforce/auth/oauth.js';
import { connect } from '../salesforce/connection/connection.js';
import { openBrowser } from './browser.js';
import { callbackPage, type LoginOutcome } from './callback-page.js';
import { saveTokens } from './credentials.js';
import { listenOnLocalhost } from './loopback-listener.js';
import { CliError, EXIT, type Io } from './output.js';

export interface LoginOptions {
  readonly clientId: string;
  readonly clientSecret?: string | undefined;
  readonly loginUrl?: string | undefined;
  /** Loopback port of the redirect (default 1717, as the callback URL registered in the app). */
  readonly port: number;
  readonly tokenFile: string;
  /** Open the login link in the browser (false: only print it). */
  readonly openBrowser: boolean;
  /** Where `BROWSER` is read from. */
  readonly env?: NodeJS.ProcessEnv;
  /** Give up waiting for the browser after this many ms (default 5 minutes). */
  readonly timeoutMs?: number;
  /** Report the login as a JSON object on stdout. */
  readonly json?: boolean;
}

/** The callback's verdict: a code to exchange, an answer to ignore, or how the login ended. */
type Callback =
  | { readonly code: string }
  | { readonly ignored: LoginOutcome }
  | { readonly outcome: LoginOutcome; readonly error: CliError };

/**
 * Reads the callback's query. A `state` other than the one sent is answered and ignored before
 * anything else is looked at: the answer belongs to another login (a stale tab, or any web page
 * pointing at the callback), and must neither be used nor end this one.
 */
export function readCallback(params: URLSearchParams, expectedState: string): Callback {
  if (params.get('state') !== expectedState) return { ignored: { kind: 'state-mismatch' } };
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
    const message = `Salesforce refused the login: ${error ? hostText(error) : 'no code in the answer'}${description ? ` (${hostText(description)})` : ''}`;
    return { outcome: { kind: 'error', message }, error: new CliError(EXIT.auth, message) };
  }
  return { code };
}

/** The first code the callback took, with the browser's request still open for the last page. */
interface Delivered {
  readonly code: string;
  readonly response: ServerResponse;
}

/**
 * The loopback server's routes. `/start` with the one-time token redirects once to the authorize
 * URL; `/OauthRedirect` hands over the first code. `delivered` settles with that code, or rejects
 * with why the login ended (`fail` ends it from outside, as the timeout does). Nothing is served
 * until `authorization()` returns the request, which needs the port the server got.
 */
function callbackRoutes(
  startToken: string,
  authorization: () => AuthorizationRequest | undefined,
): {
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  delivered: Promise<Delivered>;
  fail: (error: Error) => void;
} {
  let linkOpened = false;
  let codeTaken = false;
  let settle!: { resolve: (v: Delivered) => void; reject: (e: Error) => void };
  const delivered = new Promise<Delivered>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const request = authorization();
    if (!request) {
      res.writeHead(404).end();
    } else if (url.pathname === '/start' && url.searchParams.get('t') === startToken) {
      if (!linkOpened) {
        linkOpened = true;
        res.writeHead(302, { location: request.url, 'cache-control': 'no-store' }).end();
        return;
      }
      // Opened twice: another program may hold the authorize URL, and so be able to send a
      // code of its own with the right state. No code is taken from here on.
      codeTaken = true;
      void answer(res, { kind: 'link-reused' }).then(() =>
        settle.reject(
          new CliError(
            EXIT.auth,
            'Login stopped: its one-time link was opened twice, so another program may have started it too. Run `service-crm login` again.',
          ),
        ),
      );
    } else if (url.pathname === '/OauthRedirect') {
      if (codeTaken) {
        void answer(res, { kind: 'already-answered' });
        return;
      }
      const verdict = readCallback(url.searchParams, request.state);
      if ('code' in verdict) {
        codeTaken = true;
        settle.resolve({ code: verdict.code, response: res });
      } else if ('ignored' in verdict) {
        void answer(res, verdict.ignored);
      } else {
        codeTaken = true;
        // The page first: the rejection closes the server.
        void answer(res, verdict.outcome).then(() => settle.reject(verdict.error));
      }
    } else {
      res.writeHead(404).end();
    }
  };
  return { handle, delivered, fail: (error) => settle.reject(error) };
}

export async function login(options: LoginOptions, io: Io): Promise<void> {
  const client = {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    loginUrl: options.loginUrl,
  };
  let authorization: AuthorizationRequest | undefined;
  const startToken = randomBytes(32).toString('base64url');
  const routes = callbackRoutes(startToken, () => authorization);
  const listener = await listenOnLocalhost(options.port, routes.handle);
  const timer = setTimeout(
    () =>
      routes.fail(
        new CliError(
          EXIT.auth,
          'No answer from the browser in time: run `service-crm login` again',
        ),
      ),
    options.timeoutMs ?? 300_000,
  );
  try {
    const origin = `http://localhost:${listener.port}`;
    authorization = createAuthorization({ ...client, redirectUri: `${origin}/OauthRedirect` });
    await showLoginLink(`${origin}/start?t=${startToken}`, options, io);
    await completeLogin(client, authorization, await routes.delivered, options, io);
  } finally {
    clearTimeout(timer);
    listener.close();
  }
}

/**
 * Exchanges the code, saves the tokens with the org and user they belong to, and says so to the
 * browser and on stdout. A failure is shown on the browser's page as well before it is thrown.
 */
async function completeLogin(
  client: OAuthClient,
  authorization: AuthorizationRequest,
  { code, response }: Delivered,
  options: LoginOptions,
  io: Io,
): Promise<void> {
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
}

async function showLoginLink(url: string, options: LoginOptions, io: Io): Promise<void> {
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
