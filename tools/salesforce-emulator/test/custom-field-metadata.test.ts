// CustomField components as Salesforce keeps them: an upsert replaces the component, a type
// change converts (or loses) the values records hold, a field mapped for lead conversion keeps
// its type, and readMetadata answers the admin's attributes.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { seedCustomField } from '../src/custom-field-metadata.ts';
import { type Emulator, startEmulator } from '../src/server.ts';

let emulator: Emulator;
beforeEach(async () => {
  emulator = await startEmulator();
});
afterEach(async () => {
  await emulator.close();
});

async function soap(call: string): Promise<string> {
  const { accessToken } = emulator.issueTokens();
  const response = await fetch(`${emulator.url}/services/Soap/m/59.0`, {
    method: 'POST',
    headers: { 'content-type': 'text/xml', soapaction: '""' },
    body: `<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns="http://soap.sforce.com/2006/04/metadata" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Header><SessionHeader><sessionId>${accessToken}</sessionId></SessionHeader></soapenv:Header><soapenv:Body>${call}</soapenv:Body></soapenv:Envelope>`,
  });
  expect(response.status).toBe(200);
  return response.text();
}

const read = (fullName: string) =>
  soap(`<readMetadata><type>CustomField</type><fullNames>${fullName}</fullNames></readMetadata>`);

const upsertNumber = (fullName: string) =>
  soap(
    `<upsertMetadata><metadata xsi:type="CustomField"><fullName>${fullName}</fullName><label>Sessions</label><precision>18</precision><scale>0</scale><type>Number</type></metadata></upsertMetadata>`,
  );

function handMade(mappedForLeadConversion = false): void {
  seedCustomField(emulator.org, {
    object: 'Account',
    name: 'Sessions__c',
    label: 'Sessions',
    type: 'string',
    length: 255,
    attributes: { inlineHelpText: 'Visits, by hand', trackHistory: 'true' },
    mappedForLeadConversion,
  });
  emulator.org.insert('Account', { Name: 'A', Sessions__c: '12' });
  emulator.org.insert('Account', { Name: 'B', Sessions__c: 'twelve' });
}

describe('CustomField metadata', () => {
  it('reads what an admin set by hand, help text and history tracking included', async () => {
    handMade();
    const answer = await read('Account.Sessions__c');
    expect(answer).toContain(
      '<fullName>Account.Sessions__c</fullName><inlineHelpText>Visits, by hand</inlineHelpText><label>Sessions</label><length>255</length><trackHistory>true</trackHistory><type>Text</type>',
    );
    expect(emulator.schemaErrors).toEqual([]);
  });

  it('replaces the component on upsert and converts the values, losing those that are no numbers', async () => {
    handMade();
    expect(await upsertNumber('Account.Sessions__c')).toContain('<success>true</success>');
    const answer = await read('Account.Sessions__c');
    expect(answer).not.toContain('inlineHelpText');
    expect(answer).not.toContain('trackHistory');
    expect(answer).toContain('<type>Number</type>');
    const values = [...emulator.org.table('Account').values()].map((a) => a.Sessions__c);
    expect(values).toEqual([12, null]);
  });

  it('sets every value to null on a conversion to Date/Time, as an incompatible one', async () => {
    seedCustomField(emulator.org, {
      object: 'Lead',
      name: 'Seen__c',
      label: 'Seen',
      type: 'string',
      length: 40,
    });
    emulator.org.insert('Lead', {
      LastName: 'Ng',
      Company: 'Acme',
      Seen__c: '2026-11-29T09:00:00.000Z',
    });
    const answer = await soap(
      '<upsertMetadata><metadata xsi:type="CustomField"><fullName>Lead.Seen__c</fullName><label>Seen</label><type>DateTime</type></metadata></upsertMetadata>',
    );
    expect(answer).toContain('<success>true</success>');
    expect([...emulator.org.table('Lead').values()].map((l) => l.Seen__c)).toEqual([null]);
  });

  it('refuses to change the type of a field mapped for lead conversion', async () => {
    handMade(true);
    const answer = await upsertNumber('Account.Sessions__c');
    expect(answer).toContain('<statusCode>FIELD_INTEGRITY_EXCEPTION</statusCode>');
    expect(answer).toContain('<success>false</success>');
    expect(emulator.org.fields.get('Account')?.get('Sessions__c')?.type).toBe('string');
    expect(await read('Account.Sessions__c')).toContain('<inlineHelpText>');
  });
});
