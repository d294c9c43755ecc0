// Issue 13 item 6: the emulator requires client_secret on the web server and refresh flows,
// enforces field-level security on writes, pages Tooling queries and honours ORDER BY, so the
// code paths that depend on those answers are tested.

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { describeFields } from '../../src/salesforce/read/reads.js';
import {
  createAuthorization,
  createRecord,
  exchangeCode,
  queryAll,
  SalesforceError,
} from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator({ pageSize: 5 });

async function tokenCall(
  params: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  const res = await fetch(`${env.emulator.url}/services/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(params),
  });
  return { status: res.status, body: await res.json() };
}

describe('client_secret', () => {
  it('is required on the refresh flow', async () => {
    const { emulator } = env;
    const { refreshToken } = emulator.issueTokens();
    const grant = {
      grant_type: 'refresh_token',
      client_id: emulator.clientId,
      refresh_token: refreshToken,
    };
    expect(await tokenCall(grant)).toEqual({
      status: 400,
      body: { error: 'invalid_client', error_description: 'invalid client credentials' },
    });
    expect((await tokenCall({ ...grant, client_secret: 'wrong' })).status).toBe(400);
    expect((await tokenCall({ ...grant, client_secret: emulator.clientSecret })).status).toBe(200);
  });

  it('is required on the web server flow (code exchange)', async () => {
    const { emulator } = env;
    const client = { clientId: emulator.clientId, loginUrl: emulator.url };
    const exchange = async (clientSecret?: string) => {
      const auth = createAuthorization({ ...client, redirectUri: 'http://127.0.0.1:9/cb' });
      const callback = await emulator.approve(auth.url);
      return exchangeCode({ ...client, clientSecret }, auth, {
        code: callback.searchParams.get('code') ?? '',
        state: callback.searchParams.get('state'),
      });
    };
    const error = await exchange().catch((e) => e);
    expect(error).toBeInstanceOf(SalesforceError);
    expect(error.errorCode).toBe('invalid_client');
    expect((await exchange(emulator.clientSecret)).accessToken).toBeTruthy();
  });
});

describe('field-level security on writes', () => {
  it('hides an ungranted custom field, then refuses it read-only until edit is granted', async () => {
    const { emulator } = env;
    const { org } = emulator;
    const base = org.describe('Account').find((f) => f.name === 'Name');
    org.addCustomField('Account', { ...(base ?? ({} as never)), name: 'Tier__c', custom: true });
    const connection = connectTo(emulator);
    const names = async () =>
      (await describeFields(connection, 'Account'))
        .filter((f) => f.name === 'Tier__c')
        .map((f) => [f.createable, f.updateable]);
    const create = () =>
      createRecord(connection, 'Account', { Name: 'FLS Inc', Tier__c: 'Gold' }).catch((e) => e);

    expect(await names()).toEqual([]);
    const hidden = await create();
    expect([hidden.errorCode, hidden.fields]).toEqual(['INVALID_FIELD', []]);
    expect(hidden.message).toMatch(/No such column 'Tier__c' on sobject of type Account/);

    const profileId = org.profileIdOf('Admin') ?? '';
    org.setFieldPermission(profileId, 'Account.Tier__c', true, false);
    expect(await names()).toEqual([[false, false]]);
    const readOnly = await create();
    expect([readOnly.errorCode, readOnly.fields]).toEqual([
      'INVALID_FIELD_FOR_INSERT_UPDATE',
      ['Tier__c'],
    ]);

    org.setFieldPermission(profileId, 'Account.Tier__c', true, true);
    expect(await names()).toEqual([[true, true]]);
    expect((await create()).id).toMatch(/^001/);
  });
});

describe('queries', () => {
  it('pages Tooling queries through nextRecordsUrl', async () => {
    const { emulator } = env;
    const rows = await queryAll<{ QualifiedApiName: string }>(
      connectTo(emulator),
      "SELECT QualifiedApiName FROM FieldDefinition WHERE EntityDefinition.QualifiedApiName = 'Contact'",
      { tooling: true },
    );
    expect(rows.length).toBe(emulator.org.fields.get('Contact')?.size);
    expect(rows.length).toBeGreaterThan(10);
    expect(emulator.count('GET', /\/tooling\/query\/01g/)).toBe(Math.ceil(rows.length / 5) - 1);
  });

  it('honours ORDER BY (DESC, NULLS FIRST/LAST) before LIMIT', async () => {
    const { emulator } = env;
    const ids = seedOrg(emulator.org, { companies: 3 }).accounts;
    const table = emulator.org.table('Account');
    for (const [i, type] of ['b', null, 'a'].entries()) {
      Object.assign(table.get(ids[i] ?? '') ?? {}, { Type: type });
    }
    const connection = connectTo(emulator);
    const where = `WHERE Id IN ('${ids.join("', '")}')`;
    const types = async (order: string) =>
      (
        await queryAll<{ Type: string | null }>(
          connection,
          `SELECT Type FROM Account ${where} ORDER BY ${order}`,
        )
      ).map((r) => r.Type);
    expect(await types('Type')).toEqual([null, 'a', 'b']);
    expect(await types('Type DESC')).toEqual(['b', 'a', null]);
    expect(await types('Type ASC NULLS LAST')).toEqual(['a', 'b', null]);
    expect(await types('Type DESC LIMIT 1')).toEqual(['b']);
  });

  it('answers REQUEST_LIMIT_EXCEEDED with the usage in Sforce-Limit-Info', async () => {
    const { emulator } = env;
    const { accessToken } = emulator.issueTokens();
    emulator.inject({ kind: 'request-limit', path: '/limits' });
    const res = await fetch(`${emulator.url}/services/data/v59.0/limits`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    expect(res.status).toBe(403);
    expect(res.headers.get('sforce-limit-info')).toMatch(/^api-usage=\d+\/\d+$/);
    expect(await res.json()).toEqual([
      { message: 'TotalRequests Limit exceeded.', errorCode: 'REQUEST_LIMIT_EXCEEDED' },
    ]);
  });
});
