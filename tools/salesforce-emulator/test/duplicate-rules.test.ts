// The standard duplicate rules: a create that matches is refused with DUPLICATES_DETECTED and the
// matched ids unless the request says allowSave=true; Bulk API 2.0 rows fail with the code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { normalisedName } from '../src/duplicate-rules.ts';
import { type Emulator, startEmulator } from '../src/server.ts';

let emulator: Emulator;
let token = '';
beforeAll(async () => {
  emulator = await startEmulator({ validateSchema: false, duplicateRules: true });
  token = emulator.issueTokens().accessToken;
});
afterAll(() => emulator.close());

const create = async (object: string, body: object, header?: string) => {
  const response = await fetch(`${emulator.url}/services/data/v59.0/sobjects/${object}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(header ? { 'sforce-duplicate-rule-header': header } : {}),
    },
    body: JSON.stringify(body),
  });
  return [response.status, await response.json()] as const;
};

const matchedIds = (body: unknown) =>
  (
    body as {
      duplicateResult: { matchResults: { matchRecords: { record: { Id: string } }[] }[] };
    }[]
  )
    .flatMap((e) => e.duplicateResult.matchResults.flatMap((m) => m.matchRecords))
    .map((r) => r.record.Id);

describe('standard duplicate rules', () => {
  it('normalise names: case, punctuation and company suffixes', () => {
    expect(normalisedName('ACME, Inc.')).toBe(normalisedName('Acme Inc'));
    expect(normalisedName('Globex Ltd')).toBe('globex');
  });

  it('refuse a Contact that matches one, with the matched id, and save it with allowSave=true', async () => {
    const account = emulator.org.insert('Account', { Name: 'Initech', Website: 'initech.com' });
    const first = emulator.org.insert('Contact', {
      FirstName: 'Robert',
      LastName: 'Paulson',
      Email: 'bob@initech.com',
      AccountId: account,
    });
    const body = { FirstName: 'Rob', LastName: 'paulson', AccountId: account, Email: 'r@x.io' };
    const [status, refused] = await create('Contact', body);
    expect(status).toBe(400);
    expect(refused).toMatchObject([
      {
        errorCode: 'DUPLICATES_DETECTED',
        message: 'Use one of these records?',
        duplicateResult: {
          duplicateRule: 'Standard_Contact_Duplicate_Rule',
          matchResults: [{ entityType: 'Contact', size: 1, success: true }],
        },
      },
    ]);
    expect(matchedIds(refused)).toEqual([first]);
    const [saved] = await create('Contact', body, 'allowSave=true; includeRecordDetails=false');
    expect(saved).toBe(201);
    // Another person at the same company is no duplicate.
    expect((await create('Contact', { ...body, FirstName: 'Marla' }))[0]).toBe(201);
  });

  it('match a Lead against a Contact of the same name at the same company', async () => {
    const account = emulator.org.insert('Account', { Name: 'Hooli Inc.' });
    const contact = emulator.org.insert('Contact', {
      FirstName: 'Gavin',
      LastName: 'Belson',
      AccountId: account,
    });
    const [status, refused] = await create('Lead', {
      FirstName: 'Gavin',
      LastName: 'Belson',
      Company: 'HOOLI',
    });
    expect(status).toBe(400);
    expect(matchedIds(refused)).toEqual([contact]);
  });

  it('refuse an Account with the same name and website', async () => {
    const acme = emulator.org.insert('Account', { Name: 'Acme Ltd', Website: 'https://acme.io' });
    const [status, refused] = await create('Account', { Name: 'acme', Website: 'www.acme.io' });
    expect(status).toBe(400);
    expect(matchedIds(refused)).toEqual([acme]);
    expect((await create('Account', { Name: 'Acme', Website: 'acme.example' }))[0]).toBe(201);
  });

  it('fail a Bulk API 2.0 row that matches with DUPLICATES_DETECTED', async () => {
    emulator.org.insert('Lead', {
      LastName: 'Hendricks',
      Email: 'rh@piedpiper.com',
      Company: 'PP',
    });
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const base = `${emulator.url}/services/data/v59.0/jobs/ingest`;
    const job = (await (
      await fetch(base, {
        method: 'POST',
        headers,
        body: JSON.stringify({ object: 'Lead', operation: 'insert', lineEnding: 'LF' }),
      })
    ).json()) as { id: string };
    await fetch(`${base}/${job.id}/batches`, {
      method: 'PUT',
      headers: { ...headers, 'content-type': 'text/csv' },
      body: 'LastName,Email,Company\nHendricks,rh@piedpiper.com,PP\nDunn,jd@piedpiper.com,PP\n',
    });
    await fetch(`${base}/${job.id}`, {
      method: 'PATCH',
      headers,
      body: JSON.stringify({ state: 'UploadComplete' }),
    });
    const failed = await (await fetch(`${base}/${job.id}/failedResults`, { headers })).text();
    expect(failed).toContain('DUPLICATES_DETECTED:Use one of these records?');
    expect(failed).not.toContain('Dunn');
  });
});
