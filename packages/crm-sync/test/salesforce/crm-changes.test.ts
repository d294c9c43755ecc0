// Read only what changed (issue 16): a first read takes everything, later reads take what
// changed since the watermark (SystemModstamp) through queryAll, deletions included.

import { seedOrg } from '@service/salesforce-emulator';
import { parseQuery } from 'soql-parser-js';
import { describe, expect, it } from 'vitest';
import { planSync } from '../../src/index.js';
import {
  type CrmSnapshotFile,
  readCrmChanges,
  readMissing,
  updateRecord,
  withWriting,
} from '../../src/salesforce.js';
import { company, contact } from '../fixtures.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator({ pageSize: 100 });
const HOUR = 3600;

describe('readCrmChanges', () => {
  it('reads everything first, then exactly what changed in the org, deletions included', async () => {
    const { emulator } = env;
    const { org } = emulator;
    // Records created a day ago: outside the overlap a later read takes again.
    org.advance(-24 * HOUR);
    const { accounts, contacts } = seedOrg(org, { companies: 150, leads: 20, opportunities: 6 });
    org.advance(24 * HOUR);
    const connection = connectTo(emulator);
    const calls = () => emulator.requests.length;

    let before = calls();
    const first = await readCrmChanges(connection);
    expect(first.reads).toEqual({
      Account: { mode: 'full', records: 150, deleted: 0 },
      Contact: { mode: 'full', records: 150, deleted: 0 },
      Lead: { mode: 'full', records: 20, deleted: 0 },
      Opportunity: { mode: 'full', records: 6, deleted: 0 },
    });
    expect(first.snapshot.opportunities).toHaveLength(6);
    // describe + 2 pages for Accounts and Contacts, describe + 1 page for Leads; no Opportunity read
    expect(calls() - before).toBe(3 + 3 + 2);

    before = calls();
    const quiet = await readCrmChanges(connection, { previous: first.snapshot });
    expect(Object.values(quiet.reads).map((r) => [r.mode, r.records])).toEqual([
      ['changes', 0],
      ['changes', 0],
      ['changes', 0],
      ['changes', 0],
    ]);
    // One queryAll per object, no describe: the snapshot knows what the user cannot read; then
    // one COUNT() per object, which finds no record purged unseen from the Recycle Bin.
    const sent = emulator.requests.slice(before);
    expect(sent.map((r) => r.path.replace(/.*\/v59\.0/, ''))).toEqual([
      '/queryAll',
      '/queryAll',
      '/queryAll',
      '/queryAll',
      '/query',
      '/query',
      '/query',
      '/query',
    ]);
    const where = parseQuery(sent[1]?.query.get('q') ?? '').where?.left;
    expect(where).toMatchObject({
      field: 'SystemModstamp',
      operator: '>',
      literalType: 'DATETIME',
    });
    expect(quiet.snapshot.contacts).toEqual(first.snapshot.contacts);

    // The org changes: a Contact's email, a won deal on an Account, a deleted Account.
    const jane = org.table('Contact').get(contacts[7] ?? '');
    if (jane) org.change('Contact', jane, { Email: 'jane@company7.com' });
    const won = org.insert('Opportunity', {
      AccountId: accounts[100],
      StageName: 'Closed Won',
      Name: 'Big deal',
      CloseDate: '2026-06-30',
    });
    org.derive('Opportunity', org.table('Opportunity').get(won) ?? { Id: won });
    org.recycle('Account', accounts[140] ?? '');
    const changed = await readCrmChanges(connection, { previous: quiet.snapshot });
    expect(changed.reads).toEqual({
      Account: { mode: 'changes', records: 1, deleted: 1 },
      Contact: { mode: 'changes', records: 1, deleted: 0 },
      Lead: { mode: 'changes', records: 0, deleted: 0 },
      Opportunity: { mode: 'changes', records: 1, deleted: 0 },
    });
    const { snapshot } = changed;
    expect(snapshot.accounts).toHaveLength(149);
    expect(snapshot.accounts.some((a) => a.Id === accounts[140])).toBe(false);
    expect(snapshot.contacts.find((c) => c.Id === contacts[7])?.Email).toBe('jane@company7.com');
    expect(snapshot.opportunities.filter((o) => o.AccountId === accounts[100])).toEqual([
      expect.objectContaining({ Id: won, IsClosed: true, IsWon: true }),
    ]);
    // Nothing else moved: the snapshot equals a full read of the org now.
    const full = await readCrmChanges(connection, { previous: snapshot, fullRead: true });
    expect(full.reads.Account.mode).toBe('full');
    const byId = <T extends { Id?: string }>(list: readonly T[]) =>
      [...list].sort((a, b) => String(a.Id).localeCompare(String(b.Id)));
    expect(byId(snapshot.accounts)).toEqual(byId(full.snapshot.accounts));
    expect(byId(snapshot.contacts)).toEqual(byId(full.snapshot.contacts));
    expect(byId(snapshot.opportunities)).toEqual(byId(full.snapshot.opportunities));
  });

  it('reads everything again for another org, other columns, or a snapshot older than the Recycle Bin keeps', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    const { snapshot } = await readCrmChanges(connection);
    const modes = async (previous: CrmSnapshotFile, extra = {}) =>
      Object.values((await readCrmChanges(connection, { previous, ...extra })).reads).map(
        (r) => r.mode,
      );
    expect(await modes(snapshot)).toEqual(['changes', 'changes', 'changes', 'changes']);
    expect(await modes({ ...snapshot, instanceUrl: 'https://other.my.salesforce.com' })).toEqual([
      'full',
      'full',
      'full',
      'full',
    ]);
    expect(await modes(snapshot, { fields: { Contact: ['Title__c'] } })).toEqual([
      'changes',
      'full',
      'changes',
      'changes',
    ]);
    const later = Date.parse(snapshot.objects.Lead.watermark) + 16 * 86_400_000;
    expect(await modes(snapshot, { now: () => later })).toEqual(['full', 'full', 'full', 'full']);
  });

  it('reads many changes through a queryAll job, deletions included', async () => {
    const { emulator } = env;
    const { org } = emulator;
    const connection = connectTo(emulator);
    const { snapshot } = await readCrmChanges(connection);
    const contacts = [...org.table('Contact').values()].filter((c) => c.IsDeleted !== true);
    // More than a page (100 here): the rest comes from a job.
    for (const c of contacts.slice(0, 120)) org.change('Contact', c, { Title: 'Changed' });
    org.recycle('Contact', contacts[120]?.Id ?? '');
    // Accounts too: read without the stage subquery (a job cannot run one); their
    // Opportunities' facts stay, and change only with the Opportunities themselves.
    const accounts = [...org.table('Account').values()].filter((a) => a.IsDeleted !== true);
    for (const a of accounts.slice(0, 120)) org.change('Account', a, { Type: 'Prospect' });
    const from = emulator.requests.length;
    const changed = await readCrmChanges(connection, {
      previous: snapshot,
      bulk: { readThreshold: 20, pageSize: 50, polling: { initialDelayMs: 1, maxDelayMs: 2 } },
    });
    const jobs = emulator.requests
      .slice(from)
      .filter((r) => r.method === 'POST' && r.path.endsWith('/jobs/query'))
      .map((r) => JSON.parse(r.body) as { operation: string; query: string });
    expect(jobs.map((j) => [j.operation, /FROM (\w+)/.exec(j.query)?.[1]])).toEqual([
      ['queryAll', 'Account'],
      ['queryAll', 'Contact'],
    ]);
    // The 120, and what the overlap takes again (the Account an earlier test recycled).
    expect(changed.reads.Account.mode).toBe('changes');
    expect(changed.reads.Account.records).toBeGreaterThanOrEqual(120);
    expect(changed.snapshot.opportunities).toEqual(snapshot.opportunities);
    // The jobs' CSV is typed by the describe types the first read kept: no describe call now.
    expect(emulator.requests.slice(from).filter((r) => r.path.endsWith('/describe'))).toEqual([]);
    expect(changed.reads.Contact).toEqual({ mode: 'changes', records: 121, deleted: 1 });
    const titles = changed.snapshot.contacts.filter((c) => c.Title === 'Changed');
    expect(titles).toHaveLength(120);
    expect(changed.snapshot.contacts).toHaveLength(snapshot.contacts.length - 1);
  });

  it('goes to a job without a REST page to count first when the last run wrote at least the threshold', async () => {
    const { emulator } = env;
    const { org } = emulator;
    const connection = connectTo(emulator);
    const bulk = { readThreshold: 20, pageSize: 50, polling: { initialDelayMs: 1, maxDelayMs: 2 } };
    const { snapshot } = await readCrmChanges(connection, { bulk });
    const contacts = [...org.table('Contact').values()].filter((c) => c.IsDeleted !== true);
    // The run that kept the snapshot went on to write 60 Contacts, and nothing else.
    const written = contacts.slice(0, 60);
    const kept = withWriting(snapshot, {
      steps: written.map((c) => ({
        type: 'update',
        object: 'Contact',
        id: c.Id,
        fields: { Title: 'Written' },
        subject: { kind: 'contact', email: String(c.Email), domain: 'example.com' },
        reason: 'update existing',
      })),
      summary: { updates: 60, creates: 0, feedPosts: 0, skips: 0, ambiguous: 0 },
    });
    expect(kept.objects.Contact.writing).toBe(60);
    expect(kept.objects.Account.writing).toBeUndefined();
    org.advance(60);
    for (const c of written) org.change('Contact', c, { Title: 'Written' });
    const from = emulator.requests.length;
    const read = await readCrmChanges(connection, { previous: kept, bulk, overlapSeconds: 0 });
    const sent = emulator.requests
      .slice(from)
      .map((r) => `${r.method} ${r.path.replace(/.*\/v59\.0/, '').replace(/\/750\w+/, '/ID')}`);
    // Accounts, Leads and Opportunities: a queryAll each; Contacts: a job at once; then the
    // counts of the objects.
    expect(sent).toEqual([
      'GET /queryAll',
      'POST /jobs/query',
      'GET /jobs/query/ID',
      'GET /jobs/query/ID/results',
      'GET /jobs/query/ID/results',
      'GET /queryAll',
      'GET /queryAll',
      ...Array.from({ length: 4 }, () => 'GET /query'),
    ]);
    expect(read.reads.Contact).toEqual({ mode: 'changes', records: 60, deleted: 0 });
    expect(read.snapshot.contacts.filter((c) => c.Title === 'Written')).toHaveLength(60);
    // The hint is the last run's: the new snapshot carries none until a run writes again.
    expect(read.snapshot.objects.Contact.writing).toBeUndefined();
  });

  it('leaves out records purged from the Recycle Bin (gone from queryAll too), so their subject is matched again', async () => {
    const { emulator } = env;
    const { org } = emulator;
    const connection = connectTo(emulator);
    const gone = org.insert('Contact', { LastName: 'Ng', Email: 'ng@purged.io' });
    const { snapshot } = await readCrmChanges(connection);
    const observed = [{ company: company('purged.io'), contacts: [contact('ng@purged.io')] }];
    const updatesGone = (crm: CrmSnapshotFile) =>
      planSync({ crm, observed }).steps.some((s) => s.type === 'update' && s.id === gone);
    expect(updatesGone(snapshot)).toBe(true);
    // Deleted and purged between two runs: no read saw it in the Recycle Bin.
    org.recycle('Contact', gone);
    org.emptyRecycleBin([gone]);
    await expect(updateRecord(connection, 'Contact', gone, { Title: 'x' })).rejects.toMatchObject({
      errorCode: 'ENTITY_IS_DELETED',
    });
    const next = await readCrmChanges(connection, { previous: snapshot });
    expect(next.reads.Contact.mode).toBe('full');
    expect(next.reads.Account.mode).toBe('changes');
    expect(next.snapshot.contacts.some((c) => c.Id === gone)).toBe(false);
    expect(next.snapshot.contacts).toHaveLength(snapshot.contacts.length - 1);
    expect(updatesGone(next.snapshot)).toBe(false);

    // An Opportunity of no Account counts for no stage: it is not held, nor taken for a purge.
    org.insert('Opportunity', {
      Name: 'Private',
      StageName: 'Prospecting',
      CloseDate: '2026-12-01',
    });
    const after = await readCrmChanges(connection, { previous: next.snapshot });
    expect(after.reads.Account.mode).toBe('changes');
    expect(after.snapshot.opportunities).toEqual(next.snapshot.opportunities);
  });

  it('reads by id the records a plan updates that the snapshot lacks, and only those', async () => {
    const { emulator } = env;
    const { org } = emulator;
    const connection = connectTo(emulator);
    const contact = org.insert('Contact', { LastName: 'Ng', Email: 'ng@else.com' });
    org.insert('Lead', {
      LastName: 'Ng',
      Company: 'Ngco',
      Email: 'ng@ngco.com',
      IsConverted: true,
      ConvertedContactId: contact,
    });
    const { snapshot } = await readCrmChanges(connection);
    expect(await readMissing(connection, snapshot, plan(snapshot))).toBeUndefined();
    // A snapshot without that Contact: the plan still updates it (through the converted Lead).
    const lacking = { ...snapshot, contacts: snapshot.contacts.filter((c) => c.Id !== contact) };
    const before = emulator.requests.length;
    const completed = await readMissing(connection, lacking, plan(lacking));
    const sent = emulator.requests.slice(before);
    expect(sent.map((r) => parseQuery(r.query.get('q') ?? '').where?.left)).toEqual([
      expect.objectContaining({ field: 'Id', operator: 'IN', value: [`'${contact}'`] }),
    ]);
    expect(completed?.contacts.filter((c) => c.Id === contact)).toHaveLength(1);
    expect(completed?.contacts).toHaveLength(snapshot.contacts.length);
  });
});

function plan(crm: CrmSnapshotFile) {
  return planSync({
    crm,
    observed: [{ company: company('ngco.com'), contacts: [contact('ng@ngco.com')] }],
  });
}
