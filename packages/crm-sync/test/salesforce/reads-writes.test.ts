import { seedOrg } from '@service/salesforce-emulator';
import { parseQuery } from 'soql-parser-js';
import { describe, expect, it } from 'vitest';
import {
  createRecord,
  invalidColumn,
  postFeedItem,
  readCrm,
  updateRecords,
} from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator({ pageSize: 50 });

describe('reads', () => {
  it('reads every object, following nextRecordsUrl to the last page', async () => {
    const { emulator } = env;
    seedOrg(emulator.org, { companies: 120, leads: 60, opportunities: 10 });
    const connection = connectTo(emulator);
    const crm = await readCrm(connection, { ownerSync: true });
    expect(crm.accounts).toHaveLength(120);
    expect(crm.contacts).toHaveLength(120);
    expect(crm.leads).toHaveLength(60);
    expect(crm.opportunities).toHaveLength(10);
    expect(emulator.count('GET', /\/query\/01g/)).toBe(2 + 2 + 1); // pages after the first
    const first = crm.accounts[0] as unknown as { Owner: { Email: string } };
    expect(first.Owner.Email).toBe('ada@example.com');
    expect(crm.dropped).toEqual({ Account: [], Contact: [], Lead: [], Opportunity: [] });
  });

  it('drops fields the describe hides first, then columns INVALID_FIELD still names, and keeps going', async () => {
    const { emulator } = env;
    emulator.org.hidden.add('Lead.Title');
    emulator.org.rejectedInQuery.add('Contact.MailingCity');
    emulator.org.hidden.add('User.Email');
    const connection = connectTo(emulator);
    const before = emulator.requests.length;
    const crm = await readCrm(connection, { ownerSync: true, unreadable: ['Opportunity.Type'] });
    expect(crm.dropped.Lead).toEqual(['Title']);
    expect(crm.dropped.Contact).toEqual(['MailingCity']);
    expect(crm.dropped.Account).toEqual(['Owner.Email']);
    expect(crm.dropped.Opportunity).toEqual([]);
    expect(crm.leads).toHaveLength(60);
    expect(crm.contacts[0]).not.toHaveProperty('MailingCity');
    const refused = emulator.requests.slice(before).filter((r) => r.status === 400);
    expect(refused).toHaveLength(2); // Contact.MailingCity and Owner.Email, once each
    // What each query the org received selected, parsed: a pattern over the text cannot tell.
    const queries = emulator.requests
      .slice(before)
      .filter((r) => r.path.endsWith('/query'))
      .map((r) => parseQuery(r.query.get('q') ?? ''));
    const columnsOf = (object: string) =>
      queries
        .filter((q) => q.sObject === object)
        .map((q) =>
          (q.fields ?? []).map((f) =>
            f.type === 'Field' ? f.field : 'rawValue' in f ? f.rawValue : f.type,
          ),
        );
    expect(columnsOf('Lead')).not.toEqual([]);
    for (const columns of columnsOf('Lead')) expect(columns).not.toContain('Title');
    // Pipeline Stage's facts come from the Account query's subquery, not a read of Opportunities.
    expect(columnsOf('Opportunity')).toEqual([]);
    const accountQueries = queries.filter((q) => q.sObject === 'Account');
    expect(accountQueries).not.toEqual([]);
    for (const q of accountQueries) {
      const children = (q.fields ?? []).flatMap((f) =>
        f.type === 'FieldSubquery' ? [f.subquery] : [],
      );
      expect(children.map((c) => c.relationshipName)).toEqual(['Opportunities']);
      expect(children[0]?.fields?.map((f) => ('field' in f ? f.field : f.type))).toContain('IsWon');
    }
    emulator.org.hidden.clear();
    emulator.org.rejectedInQuery.clear();
  });

  it('matches the column an INVALID_FIELD message names', () => {
    const message =
      "\nSELECT ...\nERROR at Row:1:Column:9\nNo such column 'Email' on entity 'User'. If you are";
    expect(invalidColumn(message, 'Account', ['Id', 'Name', 'Owner.Email'])).toBe('Owner.Email');
    expect(
      invalidColumn("No such column 'name' on entity 'Account'", 'Account', ['Id', 'Name']),
    ).toBe('Name');
    expect(invalidColumn('something else', 'Account', ['Id'])).toBeUndefined();
  });
});

describe('writes', () => {
  it('updates in composite calls of at most 200 and returns one outcome per record, in order', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 450 });
    const failing = accounts[201] ?? '';
    emulator.org.recordErrors.set(failing, {
      statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
      message: 'Website is locked',
    });
    const connection = connectTo(emulator);
    const before = emulator.count('PATCH', '/composite/sobjects');
    const outcomes = await updateRecords(
      connection,
      accounts.map((id) => ({ object: 'Account' as const, id, fields: { Name: `Renamed ${id}` } })),
    );
    expect(emulator.count('PATCH', '/composite/sobjects') - before).toBe(3);
    const sizes = emulator.requests
      .filter((r) => r.path.endsWith('/composite/sobjects'))
      .slice(-3)
      .map((r) => JSON.parse(r.body).records.length);
    expect(sizes).toEqual([200, 200, 50]);
    expect(outcomes.map((o) => o.id)).toEqual(accounts);
    expect(outcomes.filter((o) => !o.ok)).toEqual([
      {
        object: 'Account',
        id: failing,
        ok: false,
        errors: [
          {
            statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
            message: 'Website is locked',
            fields: [],
          },
        ],
      },
    ]);
    expect(emulator.org.table('Account').get(accounts[0] ?? '')?.Name).toBe(
      `Renamed ${accounts[0]}`,
    );
    emulator.org.recordErrors.clear();
  });

  it('sends records that met UNABLE_TO_LOCK_ROW again, and retries a 503', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 3 });
    const connection = connectTo(emulator);
    emulator.inject({ kind: 'lock', path: '/composite/sobjects' });
    emulator.inject({ kind: 'unavailable', path: '/composite/sobjects' });
    const outcomes = await updateRecords(
      connection,
      accounts.map((id) => ({ object: 'Account' as const, id, fields: { Name: 'Locked once' } })),
    );
    expect(outcomes.every((o) => o.ok)).toBe(true);
    const bodies = emulator.requests
      .filter((r) => r.path.endsWith('/composite/sobjects'))
      .slice(-3);
    expect(bodies.map((r) => [r.status, JSON.parse(r.body).records.length])).toEqual([
      [200, 3],
      [503, 1],
      [200, 1],
    ]);
  });

  it('creates a Lead without assignment rules when asked, and posts on its feed', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    const { id } = await createRecord(
      connection,
      'Lead',
      { LastName: 'Lovelace', Company: 'Analytical', Email: 'ada@analytical.io' },
      { autoAssign: false },
    );
    const create = emulator.requests.findLast(
      (r) => r.method === 'POST' && r.path.endsWith('/sobjects/Lead'),
    );
    expect(create?.headers['sforce-auto-assign']).toBe('FALSE');
    expect(emulator.org.table('Lead').get(id)?.Email).toBe('ada@analytical.io');
    const post = await postFeedItem(connection, id, 'Visited /pricing 3 times');
    expect(post.id).toMatch(/^0D5/);
    expect(emulator.org.feed.at(-1)).toMatchObject({
      subjectId: id,
      feedElementType: 'FeedItem',
      body: {
        messageSegments: [
          { type: 'MarkupBegin', markupType: 'Paragraph' },
          { type: 'Text', text: 'Visited /pricing 3 times' },
          { type: 'MarkupEnd', markupType: 'Paragraph' },
        ],
      },
    });
  });
});
