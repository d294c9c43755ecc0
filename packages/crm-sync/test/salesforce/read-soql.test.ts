// The SOQL a read sends for a given org, as the emulator received it: the fields of the table
// "The fields the service reads" (docs/crm-sync/salesforce-setup.md), written out here as the
// docs give them, less what the org hides from the user, and the Account owner only with owner
// sync. The table is the oracle; the code's own field lists are never compared with themselves.

import type { Emulator } from '@service/salesforce-emulator';
import { parseQuery } from 'soql-parser-js';
import { afterEach, describe, expect, it } from 'vitest';
import type { QueryObject } from '../../src/index.js';
import { readRecords } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

/** The docs' table, row by row. */
const FIELDS_READ: Record<QueryObject, string> = {
  Account: 'Id, Name, LastModifiedDate, Website, Type',
  Contact:
    'AccountId, Id, Name, Title, Email, OwnerId, Owner.Name, CreatedDate, LastActivityDate, LastModifiedDate, MailingCity, MailingState, MailingCountry',
  Lead: 'Id, Name, Title, Email, OwnerId, Owner.Name, Status, CreatedDate, LastActivityDate, LastModifiedDate, City, State, Country, IsConverted, ConvertedContactId, ConvertedAccountId',
  Opportunity: 'Id, CloseDate, Type, IsClosed, IsWon, LastModifiedDate, AccountId',
};
const OWNER_FIELDS = 'OwnerId, Owner.Email, Owner.Name';
const OBJECTS = Object.keys(FIELDS_READ) as QueryObject[];
const list = (fields: string) => fields.split(', ');

const env = useEmulator();

afterEach(() => env.emulator.org.hidden.clear());

/** The object and the columns of each query the org answered since request number `from`. */
function answeredQueries(emulator: Emulator, from: number) {
  return emulator.requests
    .slice(from)
    .filter((r) => r.path.endsWith('/query') && r.status === 200)
    .map((r) => {
      const query = parseQuery(r.query.get('q') ?? '');
      const columns = (query.fields ?? []).map((f) =>
        f.type === 'Field' ? f.field : f.type === 'FieldRelationship' ? (f.rawValue ?? '') : '',
      );
      return { object: query.sObject, columns };
    });
}

/** What reading `object` sent to the org, by its answered queries. */
async function sentFor(object: QueryObject, options: Parameters<typeof readRecords>[2] = {}) {
  const { emulator } = env;
  const from = emulator.requests.length;
  await readRecords(connectTo(emulator), object, options);
  return answeredQueries(emulator, from);
}

describe('the SOQL a read sends', () => {
  it.each(OBJECTS)(
    'selects every field of the docs table from an org that shows them: %s',
    async (object) => {
      expect(await sentFor(object)).toEqual([{ object, columns: list(FIELDS_READ[object]) }]);
    },
  );

  it('leaves out the fields the org hides from the user, and reads the rest', async () => {
    env.emulator.org.hidden.add('Contact.Title');
    env.emulator.org.hidden.add('Lead.City');
    expect(await sentFor('Contact')).toEqual([
      { object: 'Contact', columns: list(FIELDS_READ.Contact).filter((f) => f !== 'Title') },
    ]);
    expect(await sentFor('Lead')).toEqual([
      { object: 'Lead', columns: list(FIELDS_READ.Lead).filter((f) => f !== 'City') },
    ]);
  });

  it("reads the Account owner's fields only with owner sync", async () => {
    expect(await sentFor('Account', { ownerSync: true })).toEqual([
      { object: 'Account', columns: [...list(FIELDS_READ.Account), ...list(OWNER_FIELDS)] },
    ]);
    const [plain] = await sentFor('Account');
    for (const owner of list(OWNER_FIELDS)) expect(plain?.columns).not.toContain(owner);
  });
});
