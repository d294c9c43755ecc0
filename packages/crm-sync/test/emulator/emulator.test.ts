// The emulator's own guarantees, which the rest of the suite relies on: Salesforce's limits are
// enforced (so a client that does not split its calls fails), and an injected fault that is
// never hit fails the test that registered it.
import { describe, expect, it } from 'vitest';
import { startEmulator } from './server.ts';

describe('Salesforce emulator', () => {
  it('refuses composite calls over 200 records and Metadata calls over 10 components', async () => {
    const emulator = await startEmulator({ validateSchema: false });
    try {
      const { accessToken } = emulator.issueTokens();
      const records = Array.from({ length: 201 }, (_, i) => ({
        attributes: { type: 'Account' },
        id: `001000000000${String(i).padStart(3, '0')}AAA`,
        Name: 'x',
      }));
      const composite = await fetch(`${emulator.url}/services/data/v59.0/composite/sobjects`, {
        method: 'PATCH',
        headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ allOrNone: false, records }),
      });
      expect(composite.status).toBe(400);
      expect((await composite.json())[0].errorCode).toBe('EXCEEDED_ID_LIMIT');

      const components = Array.from(
        { length: 11 },
        (_, i) =>
          `<metadata xsi:type="CustomField"><fullName>Account.F${i}__c</fullName><label>F</label><length>10</length><type>Text</type></metadata>`,
      ).join('');
      const soap = await fetch(`${emulator.url}/services/Soap/m/59.0`, {
        method: 'POST',
        headers: { 'content-type': 'text/xml', soapaction: '""' },
        body: `<?xml version="1.0"?><soapenv:Envelope xmlns:soapenv="http://schemas.xmlsoap.org/soap/envelope/" xmlns="http://soap.sforce.com/2006/04/metadata" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><soapenv:Header><SessionHeader><sessionId>${accessToken}</sessionId></SessionHeader></soapenv:Header><soapenv:Body><upsertMetadata>${components}</upsertMetadata></soapenv:Body></soapenv:Envelope>`,
      });
      expect(soap.status).toBe(500);
      expect(await soap.text()).toMatch(/<faultcode>sf:EXCEEDED_ID_LIMIT<\/faultcode>/);
      expect(emulator.org.describe('Account').some((f) => f.name === 'F0__c')).toBe(false);
    } finally {
      await emulator.close();
    }
  });

  it('fails verification when a registered fault was never hit', async () => {
    const emulator = await startEmulator({ validateSchema: false });
    try {
      emulator.inject({ kind: 'unavailable', path: '/composite/sobjects' });
      expect(() => emulator.verify()).toThrow(/never hit: unavailable \* \/composite\/sobjects/);
      expect(() => emulator.verify()).not.toThrow(); // verify clears what it checked
    } finally {
      await emulator.close();
    }
  });

  it('answers an unknown token the way Salesforce does', async () => {
    const emulator = await startEmulator({ validateSchema: false });
    try {
      const response = await fetch(`${emulator.url}/services/data/v59.0/limits`, {
        headers: { authorization: 'Bearer nope' },
      });
      expect(response.status).toBe(401);
      expect(await response.json()).toEqual([
        { message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' },
      ]);
    } finally {
      await emulator.close();
    }
  });

  it('nests child subqueries (null when none), hides the Recycle Bin from query but not queryAll, and stores DateTimes to the second', async () => {
    const emulator = await startEmulator({ validateSchema: false });
    try {
      const { accessToken } = emulator.issueTokens();
      const { org } = emulator;
      const lonely = org.insert('Account', { Name: 'Lonely' });
      const dealer = org.insert('Account', { Name: 'Dealer' });
      org.insert('Opportunity', { AccountId: dealer, IsClosed: false, IsWon: false });
      const gone = org.insert('Account', { Name: 'Gone' });
      org.recycle('Account', gone);
      org.addCustomField('Account', {
        name: 'Seen__c',
        label: 'Seen',
        type: 'datetime',
        length: 0,
        precision: 0,
        scale: 0,
        custom: true,
        nillable: true,
        createable: true,
        updateable: true,
        extraTypeInfo: null,
      });
      const record = org.table('Account').get(lonely);
      if (record) org.change('Account', record, { Seen__c: '2026-02-10T17:30:00.999Z' });
      const get = async (resource: string, soql: string) => {
        const response = await fetch(
          `${emulator.url}/services/data/v59.0/${resource}?q=${encodeURIComponent(soql)}`,
          { headers: { authorization: `Bearer ${accessToken}` } },
        );
        return (await response.json()) as { records: Record<string, unknown>[] };
      };
      const { records } = await get(
        'query',
        'SELECT Name, (SELECT IsWon FROM Opportunities) FROM Account ORDER BY Name',
      );
      expect(records.map((r) => [r.Name, r.Opportunities === null])).toEqual([
        ['Dealer', false],
        ['Lonely', true],
      ]);
      expect(records[0]?.Opportunities).toMatchObject({ totalSize: 1, done: true });
      const all = await get('queryAll', 'SELECT Name, IsDeleted FROM Account ORDER BY Name');
      expect(all.records.map((r) => [r.Name, r.IsDeleted])).toEqual([
        ['Dealer', false],
        ['Gone', true],
        ['Lonely', false],
      ]);
      expect(org.table('Account').get(lonely)?.Seen__c).toBe('2026-02-10T17:30:00.000+0000');
    } finally {
      await emulator.close();
    }
  });
});
