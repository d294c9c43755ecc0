/**
 * `service-crm login`: the OAuth web server flow through a loopback redirect. The user opens
 * the printed URL; Salesforce redirects to http://localhost:<port>/OauthRedirect, where this
 * command checks `state`, exchanges the code (PKCE) and stores the tokens in a file only the
 * user can read.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from '../salesforce/connection.js';
import { createAuthorization, exchangeCode } from '../salesforce/oauth.js';
import { saveTokens } from './credentials.js';
import { CliError, EXIT, type Io } from './output.js';

export interface LoginOptions {
  readonly clientId: string;
  readonly clientSecret?: string | undefined;
  readonly loginUrl?: string | undefined;
  /** Loopback port of the redirect (default 1717, as the callback URL registered in the app). */
  readonly port: number;
  readonly tokenFile: string;
  /** Give up waiting for the browser after this many ms (default 5 minutes). */
  readonly timeoutMs?: number;
  /** Report the login as a JSON object on stdout. */
  readonly json?: boolean;
}

export async function login(options: LoginOptions, io: Io): Promise<void> {
  const client = {
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    loginUrl: options.loginUrl,
  };
  let settle!: {
    resolve: (v: { code: string; state: string | null }) => void;
    reject: (e: Error) => void;
  };
  const callback = new Promise<{ code: string; state: string | null }>((resolve, reject) => {
    settle = { resolve, reject };
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (url.pathname !== '/OauthRedirect') {
      res.writeHead(404).end();
      return;
    }
    const code = url.searchParams.get('code');
    const error = url.searchParams.get('error');
    res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
    res.end(code ? 'Connected. You can close this window.' : `Login failed: ${error ?? 'no code'}`);
    if (code) settle.resolve({ code, state: url.searchParams.get('state') });
    else {
      const description = url.searchParams.get('error_description');
      settle.reject(
        new CliError(
          EXIT.auth,
          `Login refused by Salesforce: ${error ?? 'no code'}${description ? ` (${description})` : ''}`,
        ),
      );
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
    const authorization = createAuthorization({
      ...client,
      redirectUri: `http://localhost:${port}/OauthRedirect`,
    });
    io.err('Open this URL in your browser to connect Salesforce:');
    io.err(authorization.url);
    const tokens = await exchangeCode(client, authorization, await callback);
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
    io.out(
      options.json
        ? JSON.stringify({
            organizationId: identity.organizationId,
            userId: identity.userId,
            username: identity.username,
            tokenFile: options.tokenFile,
          })
        : `Connected to org ${identity.organizationId} as ${identity.username ?? identity.userId}; tokens saved to ${options.tokenFile} (readable by you only)`,
    );
  } finally {
    clearTimeout(timer);
    server.closeAllConnections();
    server.close();
  }
}
