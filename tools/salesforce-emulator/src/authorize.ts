// The emulator's authorize pages, as a person meets them in a browser: the login form, then the
// "Allow Access?" page, then the redirect to the app's callback with a code or an error.
//
// OAuth 2.0 Web Server Flow: the authorize endpoint sends the user to log in, asks them to allow
// the app, and redirects to `redirect_uri` with `code` and `state`.
// https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm
// Endpoints: https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_endpoints.htm
import { randomBytes } from 'node:crypto';

export interface Page {
  readonly status: number;
  readonly body: string;
  readonly headers: Record<string, string>;
}

export interface AuthorizeOptions {
  readonly clientId: string;
  /** The connected app's name on the consent page. */
  readonly appName: string;
  /** The user who can log in, and their password. */
  readonly username: () => string;
  readonly password: string;
  /** Issues an authorization code bound to the PKCE challenge and the redirect URI. */
  readonly issueCode: (challenge: string | undefined, redirectUri: string) => string;
}

export const AUTHORIZE_PATH = '/services/oauth2/authorize';
export const LOGIN_PATH = '/login';
const SESSION_COOKIE = 'sid';

// The text Salesforce's login page shows for a wrong username or password.
/** The text Salesforce's login page shows for a wrong username or password. */
export const LOGIN_ERROR =
  "Please check your username and password. If you still can't log in, contact your Salesforce administrator.";

const escapeHtml = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );

const html = (title: string, content: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>` +
  '<style>body{font-family:sans-serif;background:#f3f3f3;margin:0}main{background:#fff;' +
  'max-width:24rem;margin:4rem auto;padding:1.5rem 2rem;border:1px solid #ddd;border-radius:4px}' +
  'label,input,button{display:block;width:100%;margin:.4rem 0;box-sizing:border-box}' +
  'input,button{padding:.5rem}.error{color:#c23934}.actions{display:flex;gap:1rem}</style>' +
  `</head><body><main>${content}</main></body></html>`;

const page = (status: number, body: string, headers: Record<string, string> = {}): Page => ({
  status,
  body,
  headers: { 'content-type': 'text/html;charset=UTF-8', ...headers },
});

const redirect = (location: string, headers: Record<string, string> = {}): Page => ({
  status: 302,
  body: '',
  headers: { location, ...headers },
});

export class AuthorizePages {
  private readonly sessions = new Set<string>();
  private readonly options: AuthorizeOptions;

  constructor(options: AuthorizeOptions) {
    this.options = options;
  }

  /** Answers a request to the authorize endpoint or the login form; undefined for other paths. */
  handle(method: string, url: URL, cookie: string | undefined, body: string): Page | undefined {
    if (url.pathname === LOGIN_PATH && method === 'POST') return this.logIn(body);
    if (url.pathname !== AUTHORIZE_PATH) return undefined;
    const params = url.searchParams;
    // A wrong client id is shown to the user, never sent to the (unverified) redirect URI.
    // https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_flow_errors.htm
    if (params.get('client_id') !== this.options.clientId) {
      return {
        status: 400,
        body: 'error=invalid_client_id&error_description=client%20identifier%20invalid',
        headers: { 'content-type': 'text/plain;charset=UTF-8' },
      };
    }
    const startUrl = `${url.pathname}${url.search}`;
    if (!this.signedIn(cookie)) return this.loginForm(startUrl);
    if (method === 'POST') return this.decide(params, new URLSearchParams(body).get('decision'));
    return this.consentPage(startUrl, params.get('scope') ?? '');
  }

  private signedIn(cookie: string | undefined): boolean {
    const session = /(?:^|;\s*)sid=([^;]+)/.exec(cookie ?? '')?.[1];
    return session !== undefined && this.sessions.has(session);
  }

  private loginForm(startUrl: string, error?: string): Page {
    return page(
      200,
      html(
        'Login | Salesforce',
        '<h1>Log in</h1>' +
          (error ? `<p class="error" role="alert">${escapeHtml(error)}</p>` : '') +
          `<form method="post" action="${LOGIN_PATH}">` +
          `<input type="hidden" name="startURL" value="${escapeHtml(startUrl)}">` +
          '<label for="username">Username</label><input id="username" name="username" type="email" autocomplete="username">' +
          '<label for="password">Password</label><input id="password" name="pw" type="password" autocomplete="current-password">' +
          '<button id="Login" type="submit">Log In</button></form>',
      ),
    );
  }

  private logIn(body: string): Page {
    const form = new URLSearchParams(body);
    const startUrl = form.get('startURL') ?? '';
    // Only a path on this host: the login form is no open redirect.
    const next = startUrl.startsWith('/') && !startUrl.startsWith('//') ? startUrl : '/';
    if (
      form.get('username') !== this.options.username() ||
      form.get('pw') !== this.options.password
    ) {
      return this.loginForm(next, LOGIN_ERROR);
    }
    const session = randomBytes(18).toString('base64url');
    this.sessions.add(session);
    return redirect(next, {
      'set-cookie': `${SESSION_COOKIE}=${session}; Path=/; HttpOnly; SameSite=Lax`,
    });
  }

  // The user is asked to allow the app the scopes it requested.
  // https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_web_server_flow.htm
  private consentPage(startUrl: string, scope: string): Page {
    const scopes = scope.split(' ').filter(Boolean);
    return page(
      200,
      html(
        'Allow Access? | Salesforce',
        '<h1>Allow Access?</h1>' +
          `<p><strong>${escapeHtml(this.options.appName)}</strong> is asking to:</p>` +
          `<ul>${scopes.map((s) => `<li>${escapeHtml(s)}</li>`).join('')}</ul>` +
          `<p>Signed in as ${escapeHtml(this.options.username())}.</p>` +
          `<form method="post" action="${escapeHtml(startUrl)}" class="actions">` +
          '<button id="oaapprove" name="decision" value="allow" type="submit">Allow</button>' +
          '<button id="oadeny" name="decision" value="deny" type="submit">Deny</button></form>',
      ),
    );
  }

  private decide(params: URLSearchParams, decision: string | null): Page {
    const target = new URL(params.get('redirect_uri') ?? '');
    if (decision === 'allow') {
      const code = this.options.issueCode(
        params.get('code_challenge') ?? undefined,
        params.get('redirect_uri') ?? '',
      );
      target.searchParams.set('code', code);
    } else {
      // A refused consent goes back to the callback as an OAuth error, with the state.
      // https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_flow_errors.htm
      target.searchParams.set('error', 'access_denied');
      target.searchParams.set('error_description', 'end-user denied authorization');
    }
    const state = params.get('state');
    if (state !== null) target.searchParams.set('state', state);
    return redirect(target.toString());
  }
}

/**
 * A person's clicks over plain HTTP, for tests without a browser: opens the authorize URL, logs
 * in on the form, then allows (or denies) on the consent page. Returns the callback URL the
 * browser is sent to.
 */
export async function authorizeOverHttp(
  authorizeUrl: string,
  credentials: { readonly username: string; readonly password: string },
  decision: 'allow' | 'deny' = 'allow',
): Promise<URL> {
  const start = new URL(authorizeUrl);
  const form = await fetch(start, { redirect: 'manual' });
  const formHtml = await form.text();
  if (!formHtml.includes(`action="${LOGIN_PATH}"`)) {
    throw new Error(
      `authorize answered ${form.status} without a login form: ${formHtml.slice(0, 200)}`,
    );
  }
  const login = await fetch(new URL(LOGIN_PATH, start), {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      startURL: `${start.pathname}${start.search}`,
      username: credentials.username,
      pw: credentials.password,
    }),
  });
  const cookie = login.headers.get('set-cookie')?.split(';')[0];
  if (login.status !== 302 || !cookie) throw new Error(`login failed with ${login.status}`);
  const decided = await fetch(start, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ decision }),
  });
  const location = decided.headers.get('location');
  if (decided.status !== 302 || !location) throw new Error(`consent answered ${decided.status}`);
  return new URL(location);
}
