// The customer's trigger that throws: every record of its chunk fails with the trigger's error
// (sObject Collections, single REST writes, Bulk API 2.0 chunks of 200), and nothing is written.
import { afterEach, describe, expect, it } from 'vitest';
import { presetOptions } from '../src/presets.ts';
import { type Emulator, startEmulator } from '../src/server.ts';
import { TRIGGER_REFUSES } from '../src/throwing-trigger.ts';

let emulator: Emulator;
afterEach(() => emulator.close());

async function start(options: Parameters<typeof startEmulator>[0] = {}) {
  emulator = await startEmulator({ validateSchema: false, ...options });
  const { accessToken } = emulator.issueTokens();
  return async (method: string, path: string, body?: unknown, type = 'application/json') => {
    const response = await fetch(`${emulator.url}/services/data/v59.0${path}`, {
      method,
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': type },
      ...(body === undefined
        ? {}
        : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await response.text();
    return { status: response.status, text, json: () => (text ? JSON.parse(text) : undefined) };
  };
}

const accounts = (n: number) =>
  Array.from({ length: n }, (_, i) => emulator.org.insert('Account', { Name: `Company ${i}` }));

describe('throwingTrigger', () => {
  it('fails every record of a collections call when it throws on one, and writes none', async () => {
    const api = await start(presetOptions('customer', { fieldLengths: false }));
    const ids = accounts(3);
    const records = ids.map((id, i) => ({
      attributes: { type: 'Account' },
      id,
      Name: i === 1 ? `Company ${TRIGGER_REFUSES}` : `Renamed ${i}`,
    }));
    const answer = (
      await api('PATCH', '/composite/sobjects', { allOrNone: false, records })
    ).json();
    expect(answer).toHaveLength(3);
    for (const result of answer) {
      expect(result.success).toBe(false);
      expect(result.errors[0].statusCode).toBe('CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY');
      expect(result.errors[0].message).toMatch(
        /^ServiceAccountTrigger: execution of BeforeUpdate caused by: System\.\w+Exception/,
      );
    }
    expect(ids.map((id) => emulator.org.table('Account').get(id)?.Name)).toEqual([
      'Company 0',
      'Company 1',
      'Company 2',
    ]);
  });

  it('refuses a single create or update of a record it throws on, the record as stored', async () => {
    const api = await start({ throwingTrigger: true });
    const refused = await api('POST', '/sobjects/Contact', { LastName: `Doe ${TRIGGER_REFUSES}` });
    expect(refused.status).toBe(400);
    expect(refused.json()[0]).toMatchObject({ errorCode: 'CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY' });
    const id = emulator.org.insert('Account', { Name: `Old ${TRIGGER_REFUSES}` });
    // The trigger sees the whole record, not only the fields sent.
    expect((await api('PATCH', `/sobjects/Account/${id}`, { Phone: '1' })).status).toBe(400);
    expect((await api('POST', '/sobjects/Contact', { LastName: 'Doe' })).status).toBe(201);
  });

  it('fails the Bulk API chunk of 200 it throws on; the next chunk is written', async () => {
    const api = await start({
      throwingTrigger: (_object, record) =>
        String(record.Name).endsWith('7') ? 'cpuLimit' : false,
    });
    const ids = accounts(250);
    const job = (
      await api('POST', '/jobs/ingest', { object: 'Account', operation: 'update' })
    ).json();
    // Only row 7's name ends in 7: its chunk (rows 0-199) fails, the next chunk is written.
    const csv = `Id,Name\n${ids.map((id, i) => `${id},Name ${i === 7 ? 7 : `${i}x`}`).join('\n')}\n`;
    await api('PUT', `/jobs/ingest/${job.id}/batches`, csv, 'text/csv');
    await api('PATCH', `/jobs/ingest/${job.id}`, { state: 'UploadComplete' });
    expect((await api('GET', `/jobs/ingest/${job.id}`)).json()).toMatchObject({
      state: 'JobComplete',
      numberRecordsFailed: 200,
    });
    const failed = (await api('GET', `/jobs/ingest/${job.id}/failedResults`)).text;
    expect(failed).toContain('CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY:');
    expect(failed).toContain('System.LimitException: Apex CPU time limit exceeded');
    const names = ids.map((id) => emulator.org.table('Account').get(id)?.Name);
    expect(names.filter((n) => String(n).startsWith('Name '))).toHaveLength(50);
    expect(names[200]).toBe('Name 200x');
  });
});
