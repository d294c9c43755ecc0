// Issue 12 finding 8: date and dateTime literals are unquoted in SOQL; the org refuses a
// quoted one for a date field (the emulator does too).

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { buildQuery, CrmSyncError } from '../../src/index.js';
import { readRecords } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator();

describe('SOQL date literals', () => {
  it('writes date and dateTime literals unquoted', () => {
    const [soql] = buildQuery('Opportunity', {
      where: [
        { field: 'LastModifiedDate', op: '>', value: { dateTime: '2024-01-01T00:00:00Z' } },
        { field: 'LastModifiedDate', op: '<', value: new Date('2030-05-06T07:08:09.000Z') },
        { field: 'CloseDate', op: '>=', value: { date: '2024-01-01' } },
      ],
    });
    expect(soql).toMatch(
      / WHERE LastModifiedDate > 2024-01-01T00:00:00Z AND LastModifiedDate < 2030-05-06T07:08:09Z AND CloseDate >= 2024-01-01$/,
    );
  });

  it('refuses malformed dates with a clear error', () => {
    for (const value of [{ date: '2024-1-1' }, { dateTime: '2024-01-01' }, new Date('nope')]) {
      expect(() =>
        buildQuery('Account', { where: [{ field: 'LastModifiedDate', value }] }),
      ).toThrow(CrmSyncError);
    }
  });

  it('reads only the records modified after a dateTime, from the org', async () => {
    const { emulator } = env;
    const [old = '', recent = ''] = seedOrg(emulator.org, { companies: 2 }).accounts;
    const table = emulator.org.table('Account');
    Object.assign(table.get(old) ?? {}, { LastModifiedDate: '2023-12-31T23:59:59.000+0000' });
    Object.assign(table.get(recent) ?? {}, { LastModifiedDate: '2024-01-01T00:00:01.000+0000' });
    const { records } = await readRecords<{ Id: string }>(connectTo(emulator), 'Account', {
      where: [{ field: 'LastModifiedDate', op: '>', value: { dateTime: '2024-01-01T00:00:00Z' } }],
    });
    expect(records.map((r) => r.Id)).toEqual([recent]);
  });
});
