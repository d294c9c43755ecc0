// The emulator's own guarantees, which the rest of the suite relies on: Salesforce's limits are
// enforced (so a client that does not split its calls fails), and an injected fault that is
// never hit fails the test that registered it.
import { describe, expect, it } from 'vitest';
import { customFieldDescribe } from '../src/org.ts';
import { seedOrg } from '../src/seed.ts';
import { startEmulator } from '../src/server.ts';

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
      org.addCustomField('Account', customFieldDescribe('Seen__c', 'Seen', 'datetime'));
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

  it("pages a long child list behind its own cursor, which the parent's next page invalidates", async () => {
    const emulator = await startEmulator({ validateSchema: false, pageSize: 2, childPageSize: 3 });
    try {
      const { accessToken } = emulator.issueTokens();
      const { org } = emulator;
      for (const name of ['A', 'B', 'C']) {
        const id = org.insert('Account', { Name: name });
        for (let i = 0; i < 5; i++) org.insert('Opportunity', { AccountId: id });
      }
      const get = async (path: string) => {
        const response = await fetch(`${emulator.url}${path}`, {
          headers: { authorization: `Bearer ${accessToken}` },
        });
        return { status: response.status, body: await response.json() };
      };
      const soql = 'SELECT Name, (SELECT Id FROM Opportunities) FROM Account ORDER BY Name';
      const first = await get(`/services/data/v59.0/query?q=${encodeURIComponent(soql)}`);
      const children = first.body.records[0].Opportunities;
      expect(children).toMatchObject({ totalSize: 5, done: false });
      expect(children.records).toHaveLength(3);
      const rest = await get(children.nextRecordsUrl);
      expect(rest.body).toMatchObject({ done: true });
      expect(rest.body.records).toHaveLength(2);
      await get(first.body.nextRecordsUrl);
      const late = await get(first.body.records[1].Opportunities.nextRecordsUrl);
      expect([late.status, late.body[0].errorCode]).toEqual([400, 'INVALID_QUERY_LOCATOR']);
    } finally {
      await emulator.close();
    }
  });

  it('runs Bulk API 2.0 jobs in the documented shapes: states, CSV result columns, result pages, a job with a hidden column failed whole', async () => {
    const emulator = await startEmulator({ validateSchema: false });
    try {
      const { accessToken } = emulator.issueTokens();
      const [first, second] = seedOrg(emulator.org, { companies: 3 }).accounts;
      const api = async (
        method: string,
        path: string,
        body?: string,
        type = 'application/json',
      ) => {
        const response = await fetch(`${emulator.url}/services/data/v59.0${path}`, {
          method,
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': type },
          ...(body === undefined ? {} : { body }),
        });
        const text = await response.text();
        return {
          status: response.status,
          headers: response.headers,
          text,
          json: () => JSON.parse(text),
        };
      };
      emulator.bulk.pollsBeforeDone = 1;
      const created = await api(
        'POST',
        '/jobs/ingest',
        JSON.stringify({ object: 'Account', operation: 'update' }),
      );
      expect(created.status).toBe(200);
      const job = created.json();
      expect(job).toMatchObject({
        state: 'Open',
        object: 'Account',
        operation: 'update',
        contentType: 'CSV',
      });
      const csv = `Id,Name\n${first},"One, Inc"\n${second},Two\n001000000000000AAA,Nobody\n`;
      expect((await api('PUT', `/jobs/ingest/${job.id}/batches`, csv, 'text/csv')).status).toBe(
        201,
      );
      const closed = await api(
        'PATCH',
        `/jobs/ingest/${job.id}`,
        JSON.stringify({ state: 'UploadComplete' }),
      );
      expect(closed.json().state).toBe('UploadComplete');
      expect((await api('GET', `/jobs/ingest/${job.id}`)).json().state).toBe('InProgress');
      expect((await api('GET', `/jobs/ingest/${job.id}`)).json()).toMatchObject({
        state: 'JobComplete',
        numberRecordsProcessed: 3,
        numberRecordsFailed: 1,
      });
      const ok = await api('GET', `/jobs/ingest/${job.id}/successfulResults`);
      expect(ok.headers.get('content-type')).toMatch(/text\/csv/);
      expect(ok.text.split('\n')[0]).toBe('"sf__Id","sf__Created","Id","Name"');
      expect(ok.text).toContain(`"${first}","false","${first}","One, Inc"`);
      const failed = await api('GET', `/jobs/ingest/${job.id}/failedResults`);
      expect(failed.text.split('\n')[0]).toBe('"sf__Id","sf__Error","Id","Name"');
      expect(failed.text).toMatch(/"INVALID_CROSS_REFERENCE_KEY:invalid cross reference id:--"/);
      expect(emulator.org.table('Account').get(first ?? '')?.Name).toBe('One, Inc');
      const aborted = await api(
        'PATCH',
        `/jobs/ingest/${job.id}`,
        JSON.stringify({ state: 'Aborted' }),
      );
      expect(aborted.status).toBe(400); // a finished job cannot be aborted

      const query = await api(
        'POST',
        '/jobs/query',
        JSON.stringify({ operation: 'query', query: 'SELECT Id, Name FROM Account' }),
      );
      expect(query.json().state).toBe('UploadComplete');
      const early = await api('GET', `/jobs/query/${query.json().id}/results`);
      expect(early.status).toBe(412);
      await api('GET', `/jobs/query/${query.json().id}`);
      const page = await api('GET', `/jobs/query/${query.json().id}/results?maxRecords=2`);
      expect(page.headers.get('sforce-numberofrecords')).toBe('2');
      const locator = page.headers.get('sforce-locator') ?? '';
      expect(page.text.split('\n')[0]).toBe('"Id","Name"');
      const last = await api(
        'GET',
        `/jobs/query/${query.json().id}/results?maxRecords=2&locator=${locator}`,
      );
      expect(last.headers.get('sforce-numberofrecords')).toBe('1');
      expect(last.headers.get('sforce-locator')).toBe('null');
      const subquery = await api(
        'POST',
        '/jobs/query',
        JSON.stringify({
          operation: 'query',
          query: 'SELECT Id, (SELECT Id FROM Contacts) FROM Account',
        }),
      );
      expect(subquery.status).toBe(400);
      expect((await api('GET', '/jobs/ingest/750000000000000AAA')).status).toBe(404);

      // A column the user cannot see fails the job whole, not record by record.
      emulator.bulk.pollsBeforeDone = 0;
      emulator.org.hidden.add('Account.Website');
      const hidden = (
        await api(
          'POST',
          '/jobs/ingest',
          JSON.stringify({ object: 'Account', operation: 'update' }),
        )
      ).json();
      await api(
        'PUT',
        `/jobs/ingest/${hidden.id}/batches`,
        `Id,Website\n${first},a.io\n`,
        'text/csv',
      );
      await api('PATCH', `/jobs/ingest/${hidden.id}`, JSON.stringify({ state: 'UploadComplete' }));
      expect((await api('GET', `/jobs/ingest/${hidden.id}`)).json()).toMatchObject({
        state: 'Failed',
        numberRecordsProcessed: 0,
        numberRecordsFailed: 0,
        errorMessage: 'InvalidBatch : Field name not found : Website',
      });
    } finally {
      await emulator.close();
    }
  });

  it('assigns a permission set once: a second PermissionSetAssignment is a DUPLICATE_VALUE', async () => {
    const emulator = await startEmulator({ validateSchema: false });
    try {
      const { accessToken } = emulator.issueTokens();
      const { org } = emulator;
      const set = org.insert('PermissionSet', { Name: 'Service_Fields', IsOwnedByProfile: false });
      const assign = () =>
        fetch(`${emulator.url}/services/data/v59.0/sobjects/PermissionSetAssignment`, {
          method: 'POST',
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({ AssigneeId: org.userId, PermissionSetId: set }),
        });
      expect((await assign()).status).toBe(201);
      const again = await assign();
      expect(again.status).toBe(400);
      expect((await again.json())[0].errorCode).toBe('DUPLICATE_VALUE');
    } finally {
      await emulator.close();
    }
  });

  it('keeps a Chatter text post as a FeedItem queryable by ParentId, its Body the text posted', async () => {
    const emulator = await startEmulator({ validateSchema: false });
    try {
      const { accessToken } = emulator.issueTokens();
      const [account] = seedOrg(emulator.org, { companies: 1 }).accounts;
      const api = `${emulator.url}/services/data/v59.0`;
      const headers = {
        authorization: `Bearer ${accessToken}`,
        'content-type': 'application/json',
      };
      const posted = await fetch(`${api}/chatter/feed-elements`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          feedElementType: 'FeedItem',
          subjectId: account,
          body: { messageSegments: [{ type: 'Text', text: 'two\nlines' }] },
        }),
      });
      expect(posted.status).toBe(201);
      const { id } = await posted.json();
      const soql = `SELECT Id, ParentId, Type, Body FROM FeedItem WHERE ParentId IN ('${account}')`;
      const query = await fetch(`${api}/query?q=${encodeURIComponent(soql)}`, { headers });
      const { records } = await query.json();
      expect(records).toMatchObject([
        { Id: id, ParentId: account, Type: 'TextPost', Body: 'two\nlines' },
      ]);
    } finally {
      await emulator.close();
    }
  });
});
