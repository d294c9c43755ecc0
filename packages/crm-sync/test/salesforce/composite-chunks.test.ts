// Salesforce processes an sObject Collections call in chunks, runs of records of one type, and
// refuses a call of more than 10 chunks. A plan goes company by company (Account, Contacts,
// Leads, next company), so its updates are grouped by object before they are sent.

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import type { RecordUpdate } from '../../src/index.js';
import { toCompositeUpdates } from '../../src/index.js';
import { updateRecords } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator();

const chunks = (records: readonly { attributes: { type: string } }[]) =>
  records.filter((r, i) => i === 0 || r.attributes.type !== records[i - 1]?.attributes.type).length;

describe('composite updates of several objects', () => {
  it('sends records grouped by object, so no call holds more than 10 runs of one type', () => {
    const updates: RecordUpdate[] = Array.from({ length: 450 }, (_, i) => ({
      object: (['Account', 'Contact', 'Lead'] as const)[i % 3] ?? 'Account',
      id: `00${i % 3}000000000${String(i).padStart(3, '0')}`,
      fields: { Description: `n${i}` },
    }));
    const bodies = toCompositeUpdates(updates);
    expect(bodies.map((b) => b.records.length)).toEqual([200, 200, 50]);
    for (const body of bodies) expect(chunks(body.records)).toBeLessThanOrEqual(3);
  });

  it('writes interleaved Accounts and Contacts and answers each record in the order given', async () => {
    const { emulator } = env;
    const { accounts, contacts } = seedOrg(emulator.org, { companies: 150 });
    const updates: RecordUpdate[] = accounts.flatMap((account, i) => [
      { object: 'Account' as const, id: account, fields: { Name: `a${i}` } },
      { object: 'Contact' as const, id: contacts[i] ?? '', fields: { Title: `c${i}` } },
    ]);
    const composites = emulator.count('PATCH', '/composite/sobjects');
    const outcomes = await updateRecords(connectTo(emulator), updates);
    expect(outcomes.filter((o) => !o.ok)).toEqual([]);
    expect(outcomes.map((o) => o.id)).toEqual(updates.map((u) => u.id));
    expect(emulator.count('PATCH', '/composite/sobjects') - composites).toBe(2);
    expect(emulator.org.table('Contact').get(contacts[149] ?? '')?.Title).toBe('c149');
  });

  it('is refused by the org when a call holds 11 runs of one type', async () => {
    const { emulator } = env;
    const { accounts, contacts } = seedOrg(emulator.org, { companies: 6 });
    const records = accounts.flatMap((account, i) => [
      { attributes: { type: 'Account' }, id: account, Name: 'x' },
      { attributes: { type: 'Contact' }, id: contacts[i], Title: 'x' },
    ]);
    const connection = connectTo(emulator);
    const refused = await connection
      .rest('PATCH', '/composite/sobjects', {
        body: { allOrNone: false, records: records.slice(0, 11) },
      })
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 400, errorCode: 'INVALID_BATCH_REQUEST' });
    expect((refused as Error).message).toMatch(/Cannot have more than 10 chunks/);
    const ten = await connection.rest<{ success: boolean }[]>('PATCH', '/composite/sobjects', {
      body: { allOrNone: false, records: records.slice(0, 10) },
    });
    expect(ten.body.every((r) => r.success)).toBe(true);
  });
});
