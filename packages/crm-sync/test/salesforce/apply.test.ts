import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { customFieldDescribe, seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import type { PlanStep, SyncPlan } from '../../src/index.js';
import { inFlightKey } from '../../src/salesforce/state/journal.js';
import { applyPlan, fileJournal, memoryJournal, stepKey } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator({ apiMax: 10_000 });

/** A plan as planSync shapes it: updates, an Account and its Contact created, a post, a skip. */
function planFor(accounts: readonly string[], tag: string): SyncPlan {
  const domain = `${tag}-corp.com`;
  const email = `jane@${domain}`;
  const company = { kind: 'company', domain } as const;
  const person = { kind: 'contact', email, domain } as const;
  const steps: PlanStep[] = [
    ...accounts.map(
      (id, i): PlanStep => ({
        type: 'update',
        object: 'Account',
        id,
        fields: { Name: `${tag} ${i}` },
        subject: { kind: 'company', domain: `company${i}.com` },
        reason: 'update existing',
      }),
    ),
    {
      type: 'create',
      object: 'Account',
      fields: { Name: `${tag} Inc`, Website: `https://www.${domain}` },
      idempotencyKey: `Account:${domain}`,
      duplicateCheck: { object: 'Account', field: 'Website', value: domain },
      links: {},
      motion: 'New ICP visitor',
      subject: company,
      reason: 'motion',
    },
    {
      type: 'create',
      object: 'Contact',
      fields: { LastName: 'Doe', Email: email },
      idempotencyKey: `Contact:${email}`,
      duplicateCheck: { object: 'Contact', field: 'Email', value: email },
      links: { AccountId: `Account:${domain}` },
      motion: 'New ICP visitor',
      subject: person,
      reason: 'motion',
    },
    {
      type: 'feedPost',
      target: { object: 'Contact', idempotencyKey: `Contact:${email}` },
      text: 'Sessions: /pricing, /docs',
      motion: 'New ICP visitor',
      idempotencyKey: `timeline:${email}:1`,
      subject: person,
      reason: 'motion posts a timeline',
    },
    { type: 'skip', code: 'free-mail', candidates: [], subject: person, reason: 'free mail' },
  ];
  return {
    steps,
    summary: { updates: accounts.length, creates: 2, feedPosts: 1, skips: 1, ambiguous: 0 },
  };
}

describe('applyPlan', () => {
  it('writes updates in batches of 200, creates linked records, posts, and reports every step', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 450 });
    emulator.org.recordErrors.set(accounts[7] ?? '', {
      statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
      message: 'no',
    });
    const connection = connectTo(emulator);
    const progress: number[] = [];
    const plan = planFor(accounts, 'first');
    const result = await applyPlan(connection, plan, { onProgress: (p) => progress.push(p.done) });
    expect(result.counts).toEqual({
      written: 452,
      'already-done': 0,
      skipped: 1,
      failed: 1,
      planned: 0,
      pending: 0,
    });
    expect(connection.stats.calls.composite).toBe(3);
    expect(progress.at(-1)).toBe(453);
    const [contactOutcome, post] = result.outcomes.slice(-3);
    expect(contactOutcome?.status).toBe('written');
    const contact = emulator.org
      .table('Contact')
      .get(contactOutcome?.status === 'written' ? contactOutcome.id : '');
    const account = [...emulator.org.table('Account').values()].find((a) => a.Name === 'first Inc');
    expect(contact?.AccountId).toBe(account?.Id);
    expect(post?.status).toBe('written');
    expect(emulator.org.feed.at(-1)).toMatchObject({ subjectId: contact?.Id });
    expect(result.outcomes[7]).toMatchObject({
      status: 'failed',
      errors: [{ statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION' }],
    });
    emulator.org.recordErrors.clear();
  });

  it('never creates a second record nor posts twice when the same plan runs again, even without the journal', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 5 });
    const connection = connectTo(emulator);
    const plan = planFor(accounts, 'again');
    const journal = memoryJournal();
    await applyPlan(connection, plan, { journal });
    const creates = () => emulator.count('POST', /\/sobjects\/(Account|Contact)$/);
    const posts = () => emulator.count('POST', '/chatter/feed-elements');
    const [createsBefore, postsBefore, patches] = [
      creates(),
      posts(),
      emulator.count('PATCH', '/composite/sobjects'),
    ];

    const withJournal = await applyPlan(connection, plan, { journal });
    expect(withJournal.counts['already-done']).toBe(5 + 2 + 1);
    expect(emulator.count('PATCH', '/composite/sobjects')).toBe(patches);

    const withoutJournal = await applyPlan(connection, plan);
    expect(
      withoutJournal.outcomes.filter((o) => o.step.type === 'create').map((o) => o.status),
    ).toEqual(['already-done', 'already-done']);
    expect(creates()).toBe(createsBefore);
    // Without a journal the post is found in the org by the reference it carries.
    expect(
      withoutJournal.outcomes.filter((o) => o.step.type === 'feedPost').map((o) => o.status),
    ).toEqual(['already-done']);
    expect(posts()).toBe(postsBefore);
  });

  it('stops before the API limit with pending steps, and a re-run resumes writing each record once', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 600 });
    const connection = connectTo(emulator);
    const dir = await mkdtemp(join(tmpdir(), 'crm-journal-'));
    const path = join(dir, 'sync-journal.json');
    const plan = planFor(accounts, 'resume');
    // 10 000 max, reserve 50: leave room for the first two composite calls only (after the
    // limits check and the describes of Account and Contact the values are fitted to).
    emulator.setApiUsed(10_000 - 50 - 3 - 2);
    const first = await applyPlan(connection, plan, {
      journal: await fileJournal(path),
      apiReserve: 50,
    });
    expect(first.stopped?.reason).toBe('api-limit');
    expect(first.stopped?.message).toMatch(/run the same sync again/);
    expect(first.counts.written).toBe(400);
    expect(first.counts.pending).toBe(600 - 400 + 3);
    expect((await stat(path)).mode & 0o777).toBe(0o600);

    emulator.setApiUsed(0); // the rolling window freed calls
    const second = await applyPlan(connection, plan, {
      journal: await fileJournal(path),
      apiReserve: 50,
    });
    expect(second.stopped).toBeUndefined();
    expect(second.counts).toMatchObject({ written: 200 + 3, 'already-done': 400, pending: 0 });
    const sent = emulator.requests
      .filter((r) => r.path.endsWith('/composite/sobjects') && r.status === 200)
      .flatMap((r) => JSON.parse(r.body).records.map((x: { id: string; Name: string }) => x))
      .filter((x: { Name: string }) => x.Name.startsWith('resume'));
    expect(sent).toHaveLength(600);
    expect(new Set(sent.map((x: { id: string }) => x.id)).size).toBe(600);
    const keys = Object.keys(JSON.parse(await readFile(path, 'utf8')));
    expect(keys.filter((k) => !k.startsWith('in-flight:'))).toHaveLength(603);
  });

  it('writes a create without the fields the org refuses as INVALID_FIELD, and without omitFields', async () => {
    const { emulator } = env;
    emulator.org.hidden.add('Lead.Title');
    const connection = connectTo(emulator);
    const lead = (email: string): PlanStep => ({
      type: 'create',
      object: 'Lead',
      fields: {
        LastName: 'Hidden',
        Company: 'Hid',
        Email: email,
        Title: 'CTO',
        MobilePhone: '+1 555',
      },
      idempotencyKey: `Lead:${email}`,
      duplicateCheck: { object: 'Lead', field: 'Email', value: email },
      links: {},
      motion: null,
      subject: { kind: 'contact', email, domain: 'hid.io' },
      reason: 'create leads',
    });
    const plan: SyncPlan = {
      steps: [lead('a@hid.io'), lead('b@hid.io')],
      summary: { updates: 0, creates: 2, feedPosts: 0, skips: 0, ambiguous: 0 },
    };
    const result = await applyPlan(connection, plan, {
      autoAssign: false,
      omitFields: ['Lead.MobilePhone'],
    });
    expect(result.outcomes.map((o) => (o.status === 'written' ? o.omitted : o.status))).toEqual([
      ['Title'],
      ['Title'],
    ]);
    const created = [...emulator.org.table('Lead').values()].filter((l) =>
      String(l.Email).endsWith('@hid.io'),
    );
    expect(created.map((l) => [l.Title, l.MobilePhone])).toEqual([
      [undefined, undefined],
      [undefined, undefined],
    ]);
    const posts = emulator.requests
      .filter((r) => r.method === 'POST' && r.path.endsWith('/sobjects/Lead'))
      .slice(-3);
    expect(posts.map((r) => r.headers['sforce-auto-assign'])).toEqual(['FALSE', 'FALSE', 'FALSE']);
    emulator.org.hidden.clear();
  });

  it('resumes after being killed between a batch and its journal entry without writing a record twice', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 500 });
    const connection = connectTo(emulator);
    const plan = planFor(accounts, 'killed');
    const saved = memoryJournal();
    let batchesAnswered = 0;
    // The process dies after the org applied the second batch, before the journal noted it.
    const dying = {
      get: saved.get,
      record(entries: Record<string, string>) {
        const done = Object.keys(entries).some((k) => k.startsWith('update:'));
        if (done && ++batchesAnswered === 2) throw new Error('killed');
        saved.record(entries);
      },
    };
    await expect(applyPlan(connection, plan, { journal: dying })).rejects.toThrow('killed');
    const resumed = await applyPlan(connection, plan, { journal: saved });
    expect(resumed.counts).toMatchObject({ failed: 0, pending: 0 });
    const reasons = resumed.outcomes
      .filter((o) => o.status === 'already-done')
      .map((o) => o.status === 'already-done' && o.reason);
    expect(reasons.filter((r) => r === 'written by an interrupted run')).toHaveLength(200);
    expect(reasons.filter((r) => r === 'written by an earlier run')).toHaveLength(200);
    const sent = emulator.requests
      .filter((r) => r.path.endsWith('/composite/sobjects') && r.status === 200)
      .flatMap((r) => JSON.parse(r.body).records as { id: string; Name: string }[])
      .filter((x) => x.Name.startsWith('killed'));
    expect(sent).toHaveLength(500);
    expect(new Set(sent.map((x) => x.id)).size).toBe(500);
    expect(emulator.org.table('Account').get(accounts[499] ?? '')?.Name).toBe('killed 499');
  });

  it('on resuming, takes a record holding a DateTime to the second as written (Salesforce keeps no milliseconds)', async () => {
    const { emulator } = env;
    const { org } = emulator;
    org.addCustomField(
      'Account',
      customFieldDescribe('ServiceLastSeen__c', 'Service - Last Seen', 'datetime'),
    );
    org.setFieldPermission(
      org.profileIdOf('Admin') ?? '',
      'Account.ServiceLastSeen__c',
      true,
      true,
    );
    const [id = ''] = seedOrg(org, { companies: 1 }).accounts;
    const step: PlanStep = {
      type: 'update',
      object: 'Account',
      id,
      fields: { ServiceLastSeen__c: '2026-02-10T17:30:00.456Z' },
      subject: { kind: 'company', domain: 'company0.com' },
      reason: 'update existing',
    };
    const plan: SyncPlan = {
      steps: [step],
      summary: { updates: 1, creates: 0, feedPosts: 0, skips: 0, ambiguous: 0 },
    };
    // The interrupted run: the org applied the update, the journal still says "in flight".
    const record = org.table('Account').get(id);
    if (record) org.change('Account', record, step.fields);
    expect(record?.ServiceLastSeen__c).toBe('2026-02-10T17:30:00.000+0000');
    const journal = memoryJournal({ [inFlightKey(stepKey(step))]: id });
    const composites = emulator.count('PATCH', '/composite/sobjects');
    const result = await applyPlan(connectTo(emulator), plan, { journal });
    expect(result.outcomes[0]).toMatchObject({
      status: 'already-done',
      reason: 'written by an interrupted run',
    });
    expect(emulator.count('PATCH', '/composite/sobjects')).toBe(composites);
  });

  it('makes no call at all on a dry run', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 3 });
    const connection = connectTo(emulator);
    const before = emulator.requests.length;
    const result = await applyPlan(connection, planFor(accounts, 'dry'), { dryRun: true });
    expect(result.dryRun).toBe(true);
    expect(result.counts).toMatchObject({ planned: 6, skipped: 1, written: 0 });
    expect(emulator.requests.length).toBe(before);
  });
});
