import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import {
  connect,
  connectFromEnv,
  createAuthorization,
  exchangeCode,
  parseLimitInfo,
  resolveLoginUrl,
  SalesforceApiLimitError,
  SalesforceError,
  SCOPES,
  updateRecord,
} from '../../src/salesforce.js';
import { clientOf, connectTo, FAST_RETRY, sfEnvironment, useEmulator } from './helpers.js';

const env = useEmulator({ apiMax: 100_000 });

describe('OAuth web server flow', () => {
  it('asks for all six scopes with state and a PKCE challenge, on every kind of login host', () => {
    const production = createAuthorization({
      clientId: 'cid',
      redirectUri: 'http://127.0.0.1:1717/callback',
    });
    const url = new URL(production.url);
    expect(url.origin).toBe('https://login.salesforce.com');
    expect(url.pathname).toBe('/services/oauth2/authorize');
    expect(url.searchParams.get('scope')?.split(' ')).toEqual([...SCOPES]);
    expect(url.searchParams.get('state')).toBe(production.state);
    expect(url.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);
    expect(url.searchParams.get('response_type')).toBe('code');
    expect(
      new URL(
        createAuthorization({
          clientId: 'c',
          redirectUri: 'http://127.0.0.1/cb',
          loginUrl: 'sandbox',
        }).url,
      ).origin,
    ).toBe('https://test.salesforce.com');
    expect(resolveLoginUrl('acme.my.salesforce.com')).toBe('https://acme.my.salesforce.com');
    expect(() => resolveLoginUrl('http://acme.my.salesforce.com')).toThrow(/https/);
  });

  it('exchanges the code (verifier checked by the org), then reads the identity', async () => {
    const { emulator } = env;
    const client = clientOf(emulator);
    const auth = createAuthorization({ ...client, redirectUri: 'http://127.0.0.1:9/callback' });
    const callback = await emulator.approve(auth.url);
    const tokens = await exchangeCode(client, auth, {
      code: callback.searchParams.get('code') ?? '',
      state: callback.searchParams.get('state'),
    });
    expect(tokens.refreshToken).toBeTruthy();
    const connection = connect({
      instanceUrl: tokens.instanceUrl,
      accessToken: tokens.accessToken,
    });
    const identity = await connection.identity(tokens.identityUrl);
    expect(identity.organizationId).toBe(emulator.org.orgId);
    expect(identity.userId).toBe(emulator.org.userId);
    expect((await connection.identity()).userId).toBe(emulator.org.userId);
  });

  it('refuses a callback whose state differs, and a wrong verifier, without leaking secrets', async () => {
    const { emulator } = env;
    const client = clientOf(emulator);
    const auth = createAuthorization({ ...client, redirectUri: 'http://127.0.0.1:9/callback' });
    await expect(exchangeCode(client, auth, { code: 'x', state: 'forged' })).rejects.toThrow(
      /state/,
    );
    const code = (await emulator.approve(auth.url)).searchParams.get('code') ?? '';
    const error = await exchangeCode(
      client,
      { ...auth, codeVerifier: 'wrong'.repeat(10) },
      { code, state: auth.state },
    ).catch((e) => e);
    expect(error).toBeInstanceOf(SalesforceError);
    expect(error.code).toBe('auth_failed');
    expect(error.errorCode).toBe('invalid_grant');
  });
});

describe('session refresh', () => {
  it('refreshes exactly once when many concurrent calls meet an expired session', async () => {
    const { emulator } = env;
    const refreshed: string[] = [];
    const connection = connectTo(emulator, { onRefresh: () => void refreshed.push('x') });
    const before = emulator.count('POST', '/services/oauth2/token');
    emulator.expireSessions();
    const results = await Promise.all(Array.from({ length: 12 }, () => connection.limits()));
    expect(results).toHaveLength(12);
    expect(emulator.count('POST', '/services/oauth2/token') - before).toBe(1);
    expect(connection.stats.refreshes).toBe(1);
    expect(refreshed).toHaveLength(1);
  });

  it('connects from the SF_* environment, refreshing with the refresh token it names', async () => {
    const { emulator } = env;
    expect(connectFromEnv({ SF_INSTANCE_URL: 'https://x.my.salesforce.com' })).toBeUndefined();
    const tokens = emulator.issueTokens();
    const connection = connectFromEnv(sfEnvironment(emulator, tokens), { retry: FAST_RETRY });
    emulator.expireSessions();
    await connection?.limits();
    expect(connection?.stats.refreshes).toBe(1);
  });

  it("retries the refresh when Salesforce answers 'token request is already being processed'", async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    emulator.inject({ kind: 'refresh-in-progress', path: '/services/oauth2/token' });
    emulator.inject({ kind: 'expired-session', path: '/limits' });
    await connection.limits();
    expect(connection.stats.refreshes).toBe(1);
    expect(connection.stats.calls.token).toBe(2);
  });

  it('says to log in again when the refresh token is no longer valid, without echoing tokens', async () => {
    const { emulator } = env;
    const tokens = emulator.issueTokens();
    const connection = connect({
      ...tokens,
      refreshToken: '5Aep861notAValidRefreshTokenAtAll000000',
      clientId: emulator.clientId,
      clientSecret: emulator.clientSecret,
      loginUrl: emulator.url,
      retry: FAST_RETRY,
    });
    emulator.expireSessions();
    const error = await connection.limits().catch((e) => e);
    expect(error).toBeInstanceOf(SalesforceError);
    expect(error.code).toBe('session_expired');
    expect(error.message).toMatch(/Log in again/);
    expect(error.message).not.toContain(tokens.accessToken);
    expect(JSON.stringify(error)).not.toContain('5Aep861notAValid');
  });
});

describe('retries', () => {
  it('retries 503 (jsforce) and lock errors (ours), then succeeds', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    const before = emulator.count('GET', '/limits');
    emulator.inject({ kind: 'unavailable', path: '/limits', times: 2 });
    const usage = await connection.limits();
    expect(usage.max).toBe(100_000);
    expect(emulator.count('GET', '/limits') - before).toBe(3);
    const [account = ''] = seedOrg(emulator.org, { companies: 1 }).accounts;
    emulator.inject({ kind: 'lock', path: `/sobjects/Account/${account}` });
    await updateRecord(connection, 'Account', account, { Name: 'Unlocked' });
    expect(connection.stats.retries).toBe(1);
    expect(emulator.org.table('Account').get(account)?.Name).toBe('Unlocked');
  });

  it('stops at once on REQUEST_LIMIT_EXCEEDED (a rolling 24-hour limit: no retry), saying when to resume', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    const before = emulator.count('GET', '/limits');
    emulator.inject({ kind: 'request-limit', path: '/limits', times: 5 });
    const error = await connection.limits().catch((e) => e);
    expect(error).toBeInstanceOf(SalesforceApiLimitError);
    expect(error.message).toMatch(/rolling 24 hours/);
    expect(emulator.count('GET', '/limits') - before).toBe(1);
    expect(connection.stats.calls.limits).toBe(1);
    expect(connection.stats.retries).toBe(0);
    emulator.verify();
    await connection.limits(); // the remaining injected faults are cleared by verify
  });

  it('reads the API usage from Sforce-Limit-Info', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    emulator.setApiUsed(41);
    await connection.rest('GET', '/sobjects', { operation: 'describe' });
    expect(connection.usage).toEqual({ used: 42, max: 100_000 });
    expect(parseLimitInfo('api-usage=18/5000')).toEqual({ used: 18, max: 5000 });
    expect(parseLimitInfo(null)).toBeUndefined();
  });
});
