// Bring your own connection: a jsforce `Connection` the caller already has (here
// `@jsforce/jsforce-node`, which `@salesforce/core`'s Connection extends) is the transport of
// every REST, Tooling and Metadata call, and its own refresh handler renews the session.
import { Connection } from '@jsforce/jsforce-node';
import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { customFields } from '../../src/index.js';
import {
  connect,
  type JsforceConnection,
  readRecords,
  SalesforceConnection,
  setUpFields,
} from '../../src/salesforce.js';
import { FAST_RETRY, useEmulator } from './helpers.js';

const env = useEmulator({ clientSecret: 'emulator-secret' });

/** What a jsforce user has after logging in: tokens plus the connected app, refresh included. */
function userConnection(): Connection {
  const { emulator } = env;
  const tokens = emulator.issueTokens();
  return new Connection({
    instanceUrl: tokens.instanceUrl,
    accessToken: tokens.accessToken,
    refreshToken: tokens.refreshToken,
    version: '59.0',
    oauth2: {
      clientId: emulator.clientId,
      clientSecret: 'emulator-secret',
      loginUrl: emulator.url,
      redirectUri: 'http://localhost:1717/OauthRedirect',
    },
  });
}

describe('connect(jsforceConnection)', () => {
  it('takes a jsforce Connection as it is (the public shape)', () => {
    expectTypeOf(connect).toBeCallableWith(new Connection({}));
    expectTypeOf<Connection>().toMatchTypeOf<JsforceConnection>();
    const jsforce = userConnection();
    const connection = connect(jsforce, { retry: FAST_RETRY });
    expect(connection).toBeInstanceOf(SalesforceConnection);
    expect(connection.jsforce).toBe(jsforce);
    expect(connection.apiVersion).toBe('59.0');
    expect(connection.instanceUrl).toBe(env.emulator.url);
  });

  it('reads through the connection, and its own refresh handler renews an expired session', async () => {
    const { emulator } = env;
    seedOrg(emulator.org, { companies: 3 });
    const jsforce = userConnection();
    const refreshed: string[] = [];
    jsforce.on('refresh', (token: string) => refreshed.push(token));
    const connection = connect(jsforce, { retry: FAST_RETRY });
    const before = jsforce.accessToken;
    emulator.expireSessions();
    const { records } = await readRecords<{ Name: string }>(connection, 'Account');
    expect(records.map((r) => r.Name)).toEqual(['Company 0', 'Company 1', 'Company 2']);
    expect(refreshed).toHaveLength(1);
    expect(jsforce.accessToken).not.toBe(before);
    expect(connection.accessToken).toBe(jsforce.accessToken);
    expect(connection.stats.refreshes).toBe(1);
    // userinfo answers an expired token 403 Bad_OAuth_Token: the connection still renews it.
    emulator.expireSessions();
    expect((await connection.identity()).userId).toBe(emulator.org.userId);
    expect(refreshed).toHaveLength(2);
    expect(connection.usage?.max).toBe(emulator.apiMax);
  });

  it('sends the Metadata calls of field setup through it (jsforce parses the SaveResults)', async () => {
    const { emulator } = env;
    const connection = connect(userConnection(), { retry: FAST_RETRY });
    const fields = customFields.filter((f) => f.object === 'Lead').slice(0, 3);
    const result = await setUpFields(connection, { fields });
    expect(result.ok).toBe(true);
    expect(result.fields.map((f) => [f.fullName, f.created])).toEqual(
      fields.map((f) => [f.fullName, true]),
    );
    expect(result.grants.map((g) => g.ok)).toEqual([true, true, true]);
    expect(emulator.requests.filter((r) => r.soap).map((r) => r.soap?.operation)).toEqual([
      'upsertMetadata',
      'updateMetadata',
    ]);
  });
});
