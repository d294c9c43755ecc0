// The emulator's authorize pages answer as Salesforce documents the web server flow: a login
// form for a browser without a session, an "Allow Access?" page after login, then a redirect to
// the callback with `code` and `state`, or `error=access_denied` with the state; the token
// endpoint exchanges the code only with the PKCE verifier of its challenge.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOGIN_ERROR } from '../src/authorize.ts';
import { type Emulator, startEmulator } from '../src/server.ts';

let emulator: Emulator;
beforeAll(async () => {
  emulator = await startEmulator({ validateSchema: false, requireSecret: false });
});
afterAll(() => emulator.close());

const verifier = 'v'.repeat(43);
const challenge = createHash('sha256').update(verifier).digest('base64url');
const redirectUri = 'http://localhost:1717/OauthRedirect';

function authorizeUrl(extra: Record<string, string> = {}): string {
  const url = new URL('/services/oauth2/authorize', emulator.url);
  for (const [name, value] of Object.entries({
    response_type: 'code',
    client_id: emulator.clientId,
    redirect_uri: redirectUri,
    scope: 'api refresh_token',
    state: 'st-1',
    code_challenge: challenge,
    ...extra,
  }))
    url.searchParams.set(name, value);
  return url.toString();
}

const form = (fields: Record<string, string>) => ({
  method: 'POST',
  redirect: 'manual' as const,
  headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(fields),
});

const exchange = (code: string, codeVerifier: string) =>
  fetch(`${emulator.url}/services/oauth2/token`, {
    method: 'POST',
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      client_id: emulator.clientId,
      redirect_uri: redirectUri,
      code,
      code_verifier: codeVerifier,
    }),
  });

describe('emulator authorize pages', () => {
  it('shows a login form to a browser without a session, never a code', async () => {
    const page = await fetch(authorizeUrl(), { redirect: 'manual' });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    const html = await page.text();
    expect(html).toContain('name="username"');
    expect(html).toContain('type="password"');
    expect(page.headers.get('location')).toBeNull();
  });

  it('keeps the user on the login form with a wrong password', async () => {
    const start = new URL(authorizeUrl());
    const answer = await fetch(
      `${emulator.url}/login`,
      form({ startURL: start.pathname + start.search, username: emulator.username, pw: 'nope' }),
    );
    expect(answer.status).toBe(200);
    expect(answer.headers.get('set-cookie')).toBeNull();
    expect(await answer.text()).toContain(LOGIN_ERROR.replace("'", '&#39;'));
  });

  it('after login asks to allow the app, then redirects with a code and the state', async () => {
    const start = new URL(authorizeUrl());
    const login = await fetch(
      `${emulator.url}/login`,
      form({
        startURL: start.pathname + start.search,
        username: emulator.username,
        pw: emulator.password,
      }),
    );
    expect(login.status).toBe(302);
    expect(login.headers.get('location')).toBe(start.pathname + start.search);
    const cookie = login.headers.get('set-cookie')?.split(';')[0] ?? '';
    const consent = await fetch(start, { headers: { cookie } });
    const html = await consent.text();
    expect(html).toContain('Allow Access?');
    expect(html).toContain('<li>refresh_token</li>');

    const allowed = await fetch(start, { ...form({ decision: 'allow' }), headers: { cookie } });
    expect(allowed.status).toBe(302);
    const callback = new URL(allowed.headers.get('location') ?? '');
    expect(callback.origin + callback.pathname).toBe(redirectUri);
    expect(callback.searchParams.get('state')).toBe('st-1');
    const code = callback.searchParams.get('code') ?? '';
    expect(code).not.toBe('');

    // PKCE: the wrong verifier is refused, and the code is spent with it (single use).
    const wrong = await exchange(code, 'w'.repeat(43));
    expect(wrong.status).toBe(400);
    expect(await wrong.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'invalid code verifier',
    });
    const again = await emulator.approve(authorizeUrl());
    const ok = await exchange(again.searchParams.get('code') ?? '', verifier);
    expect(ok.status).toBe(200);
    expect((await ok.json()).access_token).toBeTruthy();
  });

  it('sends a refused consent back as access_denied with the state', async () => {
    const callback = await emulator.approve(authorizeUrl({ state: 'st-2' }), 'deny');
    expect(Object.fromEntries(callback.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'end-user denied authorization',
      state: 'st-2',
    });
  });

  it('shows a wrong client id to the user instead of redirecting', async () => {
    const page = await fetch(authorizeUrl({ client_id: 'someone-else' }), { redirect: 'manual' });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('error=invalid_client_id');
  });
});
