// What a customer's org refuses in the values of a write: addresses under State and
// Country/Territory Picklists, text past its standard length, malformed email addresses, values
// a restricted picklist does not list. Each behaviour is off in a developer org.
import { afterEach, describe, expect, it } from 'vitest';
import { customFieldDescribe } from '../src/org.ts';
import { presetOptions } from '../src/presets.ts';
import { type Emulator, startEmulator } from '../src/server.ts';

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function org(preset: 'developer' | 'customer') {
  emulator = await startEmulator({ ...presetOptions(preset), validateSchema: false });
  const { accessToken } = emulator.issueTokens();
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${emulator?.url}/services/data/v59.0${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return {
      status: response.status,
      body: response.status === 204 ? undefined : await response.json(),
    };
  };
  return { emulator, call };
}

type Field = { name: string; type: string; length: number; restrictedPicklist?: boolean };
type Entry = { value: string; label: string; validFor?: string };

describe('State and Country/Territory Picklists', () => {
  it('describe shows the code fields, restricted picklists, only when they are on', async () => {
    const { call } = await org('customer');
    const fields = (await call('GET', '/sobjects/Contact/describe')).body.fields as (Field & {
      picklistValues: Entry[];
      controllerName?: string;
    })[];
    const country = fields.find((f) => f.name === 'MailingCountryCode');
    expect(country).toMatchObject({ type: 'picklist', restrictedPicklist: true });
    expect(country?.picklistValues).toContainEqual(
      expect.objectContaining({ value: 'GB', label: 'United Kingdom' }),
    );
    // ISO 3166-1 has 249 alpha-2 codes.
    expect(country?.picklistValues).toHaveLength(249);
    const state = fields.find((f) => f.name === 'MailingStateCode');
    expect(state).toMatchObject({ restrictedPicklist: true, controllerName: 'MailingCountryCode' });
    // California is valid for the United States (bit of US's place in the country list) only.
    const california = state?.picklistValues.find((e) => e.label === 'California');
    const us = country?.picklistValues.findIndex((e) => e.value === 'US') ?? -1;
    const bits = Buffer.from(california?.validFor ?? '', 'base64');
    expect(((bits[us >> 3] ?? 0) & (0x80 >> (us & 7))) !== 0).toBe(true);
    expect([...bits].reduce((n, b) => n + b.toString(2).replaceAll('0', '').length, 0)).toBe(1);
    const lead = (await call('GET', '/sobjects/Lead/describe')).body.fields as Field[];
    expect(lead.map((f) => f.name)).toEqual(expect.arrayContaining(['CountryCode', 'StateCode']));

    await emulator?.close();
    const developer = await org('developer');
    const plain = (await developer.call('GET', '/sobjects/Contact/describe')).body
      .fields as Field[];
    expect(plain.some((f) => f.name.endsWith('Code'))).toBe(false);
  });

  it('takes integration values and codes, keeps them in step, refuses anything else', async () => {
    const { call, emulator } = await org('customer');
    const create = (fields: Record<string, unknown>) =>
      call('POST', '/sobjects/Contact', { LastName: 'Ng', ...fields });
    const byName = await create({ MailingCountry: 'United Kingdom' });
    expect(byName.status).toBe(201);
    expect(emulator.org.table('Contact').get(byName.body.id)).toMatchObject({
      MailingCountry: 'United Kingdom',
      MailingCountryCode: 'GB',
    });
    const byCode = await create({ MailingCountryCode: 'US', MailingStateCode: 'CA' });
    expect(emulator.org.table('Contact').get(byCode.body.id)).toMatchObject({
      MailingCountry: 'United States',
      MailingState: 'California',
    });

    const refused = await create({ MailingCountry: 'GB' });
    expect(refused.status).toBe(400);
    expect(refused.body[0]).toMatchObject({
      errorCode: 'FIELD_INTEGRITY_EXCEPTION',
      fields: ['MailingCountry'],
    });
    expect(refused.body[0].message).toMatch(/problem with this country/);
    // Canada's CA is not a state of the United Kingdom.
    const wrongState = await create({ MailingCountryCode: 'GB', MailingStateCode: 'CA' });
    expect(wrongState.body[0]).toMatchObject({
      errorCode: 'FIELD_INTEGRITY_EXCEPTION',
      fields: ['MailingStateCode'],
    });
    const unknownCode = await create({ MailingCountryCode: 'XX' });
    expect(unknownCode.body[0].errorCode).toBe('INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST');
    expect(emulator.org.table('Contact').size).toBe(2);

    // An update that names only a state is checked against the record's country.
    const update = await call('PATCH', `/sobjects/Contact/${byCode.body.id}`, {
      MailingState: 'Ontario',
    });
    expect(update.body[0].errorCode).toBe('FIELD_INTEGRITY_EXCEPTION');
  });

  it('lets any text through when off', async () => {
    const { call } = await org('developer');
    const created = await call('POST', '/sobjects/Contact', {
      LastName: 'Ng',
      MailingCountry: 'GB',
    });
    expect(created.status).toBe(201);
  });
});

describe('standard lengths, email format and restricted picklists', () => {
  it('describe gives the standard lengths, which fieldLengths enforces', async () => {
    const { call } = await org('customer');
    const lengths = async (object: string) =>
      Object.fromEntries(
        ((await call('GET', `/sobjects/${object}/describe`)).body.fields as Field[]).map((f) => [
          f.name,
          f.length,
        ]),
      );
    expect(await lengths('Contact')).toMatchObject({
      FirstName: 40,
      LastName: 80,
      Title: 128,
      Email: 80,
      Phone: 40,
      MailingCity: 40,
      MailingState: 80,
      MailingCountry: 80,
    });
    expect(await lengths('Lead')).toMatchObject({ City: 40, Company: 255, FirstName: 40 });
    expect(await lengths('Account')).toMatchObject({ Name: 255, Website: 255, BillingCity: 40 });
    const long = await call('POST', '/sobjects/Contact', {
      LastName: 'Ng',
      FirstName: 'x'.repeat(41),
    });
    expect(long.body[0]).toMatchObject({ errorCode: 'STRING_TOO_LONG', fields: ['FirstName'] });
  });

  it('refuses a malformed email address with INVALID_EMAIL_ADDRESS when emailFormat is on', async () => {
    const { call } = await org('customer');
    for (const email of ['ada@', 'ada at doe.io', '.ada@doe.io', 'ada@doe']) {
      const refused = await call('POST', '/sobjects/Lead', {
        LastName: 'L',
        Company: 'C',
        Email: email,
      });
      expect(refused.body[0], email).toMatchObject({
        errorCode: 'INVALID_EMAIL_ADDRESS',
        fields: ['Email'],
      });
    }
    const fine = await call('POST', '/sobjects/Lead', {
      LastName: 'L',
      Company: 'C',
      Email: "o'hara+crm@mail.doe-labs.io",
      Industry: 'Other', // the customer preset's validation rule asks a new Lead for one
    });
    expect(fine.status).toBe(201);
  });

  it('refuses a value its restricted picklist does not list, in any org', async () => {
    const { call, emulator } = await org('developer');
    emulator.org.fields.get('Lead')?.set('Tier__c', {
      ...customFieldDescribe('Tier__c', 'Tier', 'picklist'),
      length: 255,
      restrictedPicklist: true,
      picklistValues: [{ value: 'Gold', label: 'Gold', active: true, defaultValue: false }],
    });
    emulator.org.setFieldPermission(
      String(emulator.org.table('User').get(emulator.org.userId)?.ProfileId),
      'Lead.Tier__c',
      true,
      true,
    );
    const lead = (tier: string) =>
      call('POST', '/sobjects/Lead', { LastName: 'L', Company: 'C', Tier__c: tier });
    expect((await lead('Gold')).status).toBe(201);
    expect((await lead('Platinum')).body[0]).toMatchObject({
      errorCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      message: 'Tier: bad value for restricted picklist field: Platinum',
      fields: ['Tier__c'],
    });
  });
});
