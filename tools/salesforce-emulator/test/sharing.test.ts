// Limited sharing: another user's Account, Contact or Lead is absent from queries, retrieves and
// updates unless the user has View All Data or the object's View All; the org's defaults and the
// permissions are queryable as the sync asks for them.
import { afterEach, describe, expect, it } from 'vitest';
import { type Emulator, grantViewAll, STANDARD_USER, startEmulator } from '../src/index.ts';

let emulator: Emulator;
afterEach(() => emulator.close());

async function rest(method: string, path: string, body?: unknown) {
  const { accessToken } = emulator.issueTokens();
  const response = await fetch(`${emulator.url}/services/data/v59.0${path}`, {
    method,
    headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json().catch(() => null)) as never };
}

const query = (soql: string) => rest('GET', `/query?q=${encodeURIComponent(soql)}`);

describe('limited sharing', () => {
  it("hides another user's Lead from query, retrieve and update until View All", async () => {
    emulator = await startEmulator({ limitedSharing: true, profile: STANDARD_USER });
    const other = emulator.org.insert('User', { FirstName: 'O', LastName: 'Ther' });
    const id = emulator.org.insert('Lead', { LastName: 'X', Company: 'Y', OwnerId: other });
    expect((await query('SELECT Id FROM Lead')).body).toMatchObject({ totalSize: 0 });
    expect((await rest('GET', `/sobjects/Lead/${id}`)).status).toBe(404);
    expect(await rest('PATCH', `/sobjects/Lead/${id}`, { Title: 'z' })).toMatchObject({
      status: 400,
      body: [{ errorCode: 'INSUFFICIENT_ACCESS_OR_READONLY' }],
    });
    expect((await query('SELECT DefaultLeadAccess FROM Organization')).body).toMatchObject({
      records: [{ DefaultLeadAccess: 'None' }],
    });
    grantViewAll(emulator.org, 'Lead');
    expect((await query('SELECT Id FROM Lead')).body).toMatchObject({ totalSize: 1 });
    const granted = await query(
      "SELECT SobjectType FROM ObjectPermissions WHERE SobjectType IN ('Lead') AND PermissionsViewAllRecords = true",
    );
    expect(granted.body).toMatchObject({ records: [{ SobjectType: 'Lead' }] });
  });

  it('shows every record to a user with View All Data (a System Administrator)', async () => {
    emulator = await startEmulator({ limitedSharing: true });
    const other = emulator.org.insert('User', { FirstName: 'O', LastName: 'Ther' });
    emulator.org.insert('Account', { Name: 'Z', OwnerId: other });
    expect((await query('SELECT Id FROM Account')).body).toMatchObject({ totalSize: 1 });
  });
});

describe('record types and the validation rule', () => {
  it('give a create the default record type and refuse a Lead without an Industry', async () => {
    emulator = await startEmulator({ recordTypes: true, validationRule: true });
    const described = await rest('GET', '/sobjects/Lead/describe');
    const infos = (
      described.body as {
        recordTypeInfos: { recordTypeId: string; defaultRecordTypeMapping: boolean }[];
      }
    ).recordTypeInfos;
    const byDefault = infos.find((t) => t.defaultRecordTypeMapping)?.recordTypeId;
    expect(await rest('POST', '/sobjects/Lead', { LastName: 'A', Company: 'B' })).toMatchObject({
      status: 400,
      body: [{ errorCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', fields: ['Industry'] }],
    });
    const created = await rest('POST', '/sobjects/Lead', {
      LastName: 'A',
      Company: 'B',
      Industry: 'Other',
    });
    const { id } = created.body as { id: string };
    expect(emulator.org.table('Lead').get(id)?.RecordTypeId).toBe(byDefault);
  });
});
