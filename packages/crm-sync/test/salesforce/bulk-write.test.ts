// Writes through Bulk API 2.0 ingest jobs: above the threshold a plan's updates and creates go
// through jobs and end exactly as the composite path leaves them (org and per-record results),
// through slow jobs, per-record failures and a job that fails part-way; an interrupted run
// resumes its job from the journal and no record is written twice.

import type { Emulator } from '@service/salesforce-emulator';
import { seedOrg } from '@service/salesforce-emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import type { FieldValue, PlanStep, SyncPlan } from '../../src/index.js';
import { applyPlan, memoryJournal, type StepOutcome, setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const composite = useEmulator({ validateSchema: false });
const bulk = useEmulator({ validateSchema: false });
const FAST = { polling: { initialDelayMs: 1, maxDelayMs: 2 } } as const;

// The service's fields, as `fields apply` leaves them.
beforeAll(async () => {
  for (const { emulator } of [composite, bulk]) await setUpFields(connectTo(emulator));
});

/** A plan's create of a Lead for `email` (a motion's), after the duplicate check on its Email. */
function leadCreate(email: string, fields: Readonly<Record<string, FieldValue>>): PlanStep {
  return {
    type: 'create',
    object: 'Lead',
    fields: { ...fields, Email: email },
    idempotencyKey: `Lead:${email}`,
    duplicateCheck: { object: 'Lead', field: 'Email', value: email },
    links: {},
    motion: 'Busy visitors',
    subject: { kind: 'contact', email, domain: email.split('@')[1] ?? '' },
    reason: 'motion',
  };
}

/** Updates of every Account (field sets differ per row, text that needs quoting, a clear). */
function plan(accounts: readonly string[], leads = 0, tag = 'v1'): SyncPlan {
  const updates = accounts.map(
    (id, i): PlanStep => ({
      type: 'update',
      object: 'Account',
      id,
      fields: {
        ServiceSessions__c: i,
        ServiceIntents__c: i % 3 === 0 ? `Pricing, "Docs"\nBlog ${tag}` : `Docs ${tag}`,
        ...(i % 4 === 0
          ? { ServicePersona__c: null }
          : { ServiceFirstSeen__c: '2026-01-05T09:00:00.000Z' }),
      },
      subject: { kind: 'company', domain: `company${i}.com` },
      reason: 'update existing',
    }),
  );
  const creates = Array.from({ length: leads }, (_, i) =>
    // One Lead lacks its required LastName: REQUIRED_FIELD_MISSING on both paths.
    leadCreate(`new${i}@newco${i}.io`, {
      ...(i === 3 ? {} : { LastName: `New ${i}` }),
      Company: `Newco ${i}`,
    }),
  );
  const steps = [...updates, ...creates];
  return {
    steps,
    summary: {
      updates: updates.length,
      creates: creates.length,
      feedPosts: 0,
      skips: 0,
      ambiguous: 0,
    },
  };
}

/** What a step's outcome says, without ids the two orgs give differently (new records). */
const summary = (o: StepOutcome) => ({
  status: o.status,
  ...(o.step.type === 'update' && 'id' in o ? { id: o.id } : {}),
  ...(o.status === 'failed'
    ? { errors: o.errors.map((e) => ({ statusCode: e.statusCode, fields: e.fields })) }
    : {}),
});

/** The org's records as a person would compare them: no ids of new records, no timestamps. */
function state(emulator: Emulator, object: string) {
  return [...emulator.org.table(object).values()]
    .map(({ Id, CreatedDate: _c, LastModifiedDate: _m, SystemModstamp: _s, ...fields }) =>
      object === 'Lead' ? fields : { Id, ...fields },
    )
    .sort((a, b) => String(a.Id ?? a.Email).localeCompare(String(b.Id ?? b.Email)));
}

/** How many times each record was written: composite records answered, bulk rows processed. */
function writes(emulator: Emulator): Map<string, number> {
  const count = new Map<string, number>();
  const add = (id: string) => count.set(id, (count.get(id) ?? 0) + 1);
  for (const r of emulator.requests)
    if (r.method === 'PATCH' && r.path.endsWith('/composite/sobjects') && r.status === 200)
      for (const record of JSON.parse(r.body).records as { id: string }[]) add(record.id);
  for (const job of emulator.bulk.jobs.values())
    for (const [i, row] of job.rows.entries())
      if (job.results[i]) add(row.Id ?? `insert:${row.Email}`);
  return count;
}

const bulkCalls = (emulator: Emulator) => emulator.count('POST', /\/jobs\/ingest$/);
const compositeCalls = (emulator: Emulator) => emulator.count('PATCH', /\/composite\/sobjects$/);

describe('applyPlan with Bulk API 2.0', () => {
  it('above the threshold leaves the org and every per-record result as composite does, through slow jobs and failing records', async () => {
    const orgs = [composite.emulator, bulk.emulator];
    const seeded = orgs.map((e) => seedOrg(e.org, { companies: 60, leads: 2 }));
    for (const [n, emulator] of orgs.entries()) {
      const { accounts, leads } = seeded[n] as (typeof seeded)[number];
      emulator.org.recordErrors.set(accounts[5] ?? '', {
        statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
        message: 'Sessions must be positive',
      });
      const lead = emulator.org.table('Lead').get(leads[0] ?? '');
      if (lead) lead.IsConverted = true;
    }
    bulk.emulator.bulk.pollsBeforeDone = 3; // InProgress three times before it is done
    const [viaComposite, viaBulk] = await Promise.all(
      orgs.map((emulator, n) => {
        const { accounts } = seeded[n] as (typeof seeded)[number];
        // A record that does not exist, and the converted Lead: refused on both paths.
        const steps = plan([...accounts, '0015g00000ZZZZZAAA'], 30).steps;
        const convertedLead: PlanStep = {
          type: 'update',
          object: 'Lead',
          id: seeded[n]?.leads[0] ?? '',
          fields: { ServiceSessions__c: 1 },
          subject: { kind: 'contact', email: 'lead0@prospect0.io', domain: 'prospect0.io' },
          reason: 'update existing',
        };
        return applyPlan(
          connectTo(emulator),
          { ...plan([]), steps: [...steps, convertedLead] },
          n === 0
            ? { bulk: false, autoAssign: false }
            : { bulk: { writeThreshold: 25, ...FAST }, autoAssign: false },
        );
      }),
    );
    // Accounts and Leads each went through one job (the single Lead update stays composite).
    expect(bulkCalls(bulk.emulator)).toBe(2);
    expect(compositeCalls(bulk.emulator)).toBe(1);
    expect(bulk.emulator.count('GET', /\/jobs\/ingest\/\w+$/)).toBe(2 * 4);
    expect(compositeCalls(composite.emulator)).toBe(1); // 62 updates of both objects in one call
    expect(viaBulk?.outcomes.map(summary)).toEqual(viaComposite?.outcomes.map(summary));
    expect(viaBulk?.counts).toEqual(viaComposite?.counts);
    expect(viaBulk?.counts.failed).toBe(4); // validation, missing record, converted Lead, LastName
    for (const object of ['Account', 'Lead']) {
      expect(state(bulk.emulator, object)).toEqual(state(composite.emulator, object));
    }
    expect([...writes(bulk.emulator).values()].every((n) => n === 1)).toBe(true);
  });

  it('creates Accounts, then Contacts linked to them, in jobs as single creates do, after the duplicate check', async () => {
    const steps = Array.from({ length: 30 }, (_, i): PlanStep[] => {
      const domain = `linked${i}.io`;
      const email = `ada${i}@${domain}`;
      return [
        {
          type: 'create',
          object: 'Account',
          fields: { Name: `Linked ${i}`, Website: `https://www.${domain}` },
          idempotencyKey: `Account:${domain}`,
          duplicateCheck: { object: 'Account', field: 'Website', value: domain },
          links: {},
          motion: null,
          subject: { kind: 'company', domain },
          reason: 'create accounts',
        },
        {
          type: 'create',
          object: 'Contact',
          fields: { LastName: `Ada ${i}`, Email: email },
          idempotencyKey: `Contact:${email}`,
          duplicateCheck: { object: 'Contact', field: 'Email', value: email },
          links: { AccountId: `Account:${domain}` },
          motion: null,
          subject: { kind: 'contact', email, domain },
          reason: 'create contacts',
        },
      ];
    }).flat();
    const linkedPlan = { ...plan([]), steps };
    const results = [];
    for (const [n, { emulator }] of [composite, bulk].entries()) {
      // Already in the org: the duplicate check finds it on both paths.
      emulator.org.insert('Account', { Name: 'Existing', Website: 'http://linked7.io/about' });
      const jobs = bulkCalls(emulator);
      results.push(
        await applyPlan(
          connectTo(emulator),
          linkedPlan,
          n === 0 ? { bulk: false } : { bulk: { writeThreshold: 25, ...FAST } },
        ),
      );
      expect(bulkCalls(emulator) - jobs).toBe(n === 0 ? 0 : 2);
    }
    const [viaComposite, viaBulk] = results;
    expect(viaBulk?.outcomes.map(summary)).toEqual(viaComposite?.outcomes.map(summary));
    expect(viaBulk?.counts).toMatchObject({ written: 59, 'already-done': 1, failed: 0 });
    /** Each new Contact with the Website of the Account it is linked to. */
    const contacts = (emulator: Emulator) =>
      [...emulator.org.table('Contact').values()]
        .filter((c) => String(c.Email).startsWith('ada'))
        .map(
          (c) => `${c.Email} -> ${emulator.org.table('Account').get(String(c.AccountId))?.Website}`,
        )
        .sort();
    expect(contacts(bulk.emulator)).toEqual(contacts(composite.emulator));
    expect(contacts(bulk.emulator)).toContain('ada7@linked7.io -> http://linked7.io/about');
  });

  it('writes the records a job that failed part-way never reached through composite, each once', async () => {
    const { emulator } = bulk;
    const { accounts } = seedOrg(emulator.org, { companies: 60 });
    emulator.bulk.failNextJob = { after: 25, message: 'InvalidBatch : Failed to process query' };
    const from = emulator.requests.length;
    const result = await applyPlan(connectTo(emulator), plan(accounts, 0, 'v2'), {
      bulk: { writeThreshold: 25, ...FAST },
    });
    expect(result.counts).toMatchObject({ written: 60, failed: 0 });
    const job = [...emulator.bulk.jobs.values()].at(-1);
    expect(job?.state).toBe('Failed');
    expect(emulator.requests.slice(from).some((r) => r.path.endsWith('/unprocessedrecords'))).toBe(
      true,
    );
    // 25 rows written by the job, the other 35 in one composite call.
    const patched = emulator.requests
      .slice(from)
      .filter((r) => r.method === 'PATCH' && r.path.endsWith('/composite/sobjects'))
      .flatMap((r) => JSON.parse(r.body).records as { id: string }[]);
    expect(patched).toHaveLength(35);
    for (const id of accounts)
      expect(emulator.org.table('Account').get(id)?.ServiceIntents__c).toMatch(/v2$/);
  });

  it('sends 2,000 updates of one object as one job and 1,999 through composite calls (default threshold)', async () => {
    const { emulator } = bulk;
    const { accounts } = seedOrg(emulator.org, { companies: 2_000 });
    const jobs = bulkCalls(emulator);
    const calls = compositeCalls(emulator);
    await applyPlan(connectTo(emulator), plan(accounts.slice(0, 1_999), 0, 'v3'), { bulk: FAST });
    expect(bulkCalls(emulator) - jobs).toBe(0);
    expect(compositeCalls(emulator) - calls).toBe(10); // ceil(1,999 / 200)
    await applyPlan(connectTo(emulator), plan(accounts, 0, 'v4'), { bulk: FAST });
    expect(bulkCalls(emulator) - jobs).toBe(1);
    expect(compositeCalls(emulator) - calls).toBe(10);
  });
});

describe('an interrupted bulk write', () => {
  it.each([
    // The close of the job fails: the data is uploaded, the job still Open.
    ['the upload was sent and the close failed', 'unavailable', 'PATCH', 'SalesforceError'],
    // The org's API limit stops the run while the job is being processed.
    [
      'the job was closed and the run stopped at the API limit',
      'request-limit',
      'GET',
      'api-limit',
    ],
  ] as const)(
    'resumes from the journal when %s, writing every record once',
    async (_moment, kind, method, firstRun) => {
      const { emulator } = bulk;
      const { accounts } = seedOrg(emulator.org, { companies: 40 });
      const journal = memoryJournal();
      const options = { bulk: { writeThreshold: 25, ...FAST }, journal };
      const before = writes(emulator);
      emulator.inject({ kind, method, path: /\/jobs\/ingest\/\w+$/ });
      const first = await applyPlan(connectTo(emulator), plan(accounts, 0, 'v5'), options).then(
        (r) => r.stopped?.reason,
        (e: Error) => e.name,
      );
      expect(first).toBe(firstRun);
      const again = await applyPlan(connectTo(emulator), plan(accounts, 0, 'v5'), options);
      expect(again.counts).toMatchObject({ failed: 0, pending: 0 });
      expect(again.counts.written + again.counts['already-done']).toBe(40);
      const after = writes(emulator);
      for (const id of accounts) {
        expect((after.get(id) ?? 0) - (before.get(id) ?? 0)).toBe(1);
        expect(emulator.org.table('Account').get(id)?.ServiceIntents__c).toMatch(/v5$/);
      }
    },
  );

  it('runs the duplicate check again before re-sending an insert job Salesforce no longer knows, creating no record twice', async () => {
    const { emulator } = bulk;
    emulator.bulk.pollsBeforeDone = 0;
    const creates = Array.from({ length: 30 }, (_, i) =>
      leadCreate(`lost${i}@lostjob${i}.io`, { LastName: `Lost ${i}`, Company: `Lostjob ${i}` }),
    );
    const inserts = { ...plan([]), steps: creates };
    const journal = memoryJournal();
    const options = { bulk: { writeThreshold: 25, ...FAST }, journal, autoAssign: false };
    // The run stops at the API limit once the job is closed; the job goes on and creates them.
    emulator.inject({ kind: 'request-limit', method: 'GET', path: /\/jobs\/ingest\/\w+$/ });
    const first = await applyPlan(connectTo(emulator), inserts, options);
    expect(first.stopped?.reason).toBe('api-limit');
    const job = [...emulator.bulk.jobs.values()].at(-1);
    emulator.bulk.tick();
    expect(job?.state).toBe('JobComplete');
    // Salesforce no longer keeps the job (finished jobs are deleted after 7 days): its id
    // answers NOT_FOUND.
    // https://developer.salesforce.com/docs/atlas.en-us.api_bulk_v2.meta/api_bulk_v2/bulk_api_2_limits.htm
    emulator.bulk.jobs.delete(job?.id ?? '');

    const again = await applyPlan(connectTo(emulator), inserts, options);
    expect(again.counts).toMatchObject({ 'already-done': 30, failed: 0, pending: 0 });
    const leads = [...emulator.org.table('Lead').values()].filter((l) =>
      String(l.Email).startsWith('lost'),
    );
    expect(leads).toHaveLength(30);
  });
});

describe('a bulk job still running when its polling times out', () => {
  it('stops the run, its steps pending and the journal kept; the next run picks the job up', async () => {
    const { emulator } = bulk;
    const { accounts } = seedOrg(emulator.org, { companies: 40 });
    const journal = memoryJournal();
    const before = writes(emulator);
    emulator.bulk.pollsBeforeDone = 1_000;
    const slow = {
      writeThreshold: 25,
      polling: { initialDelayMs: 1, maxDelayMs: 2, timeoutMs: 20 },
    };
    const first = await applyPlan(connectTo(emulator), plan(accounts, 0, 'v6'), {
      bulk: slow,
      journal,
    });
    expect(first.stopped).toMatchObject({ reason: 'bulk-job-timeout' });
    expect(first.stopped?.message).toMatch(
      /^Bulk API job \w+ is still InProgress after 0 s: Salesforce goes on processing it\. Run the same sync again later/,
    );
    expect(first.counts).toMatchObject({ written: 0, pending: 40 });
    emulator.bulk.pollsBeforeDone = 0;
    const jobs = bulkCalls(emulator);
    const again = await applyPlan(connectTo(emulator), plan(accounts, 0, 'v6'), {
      bulk: { ...slow, ...FAST },
      journal,
    });
    expect(again.stopped).toBeUndefined();
    expect(again.counts).toMatchObject({ 'already-done': 40, failed: 0, pending: 0 });
    const after = writes(emulator);
    for (const id of accounts) expect((after.get(id) ?? 0) - (before.get(id) ?? 0)).toBe(1);
    expect(bulkCalls(emulator)).toBe(jobs); // no second job
  });
});

describe('a bulk write with a field the user cannot see', () => {
  it('leaves the field out of the job (Salesforce would fail the whole job for it) and writes the rest', async () => {
    const { emulator } = bulk;
    emulator.bulk.pollsBeforeDone = 0;
    const { accounts } = seedOrg(emulator.org, { companies: 30 });
    emulator.org.hidden.add('Account.ServiceFirstSeen__c');
    try {
      const calls = compositeCalls(emulator);
      const result = await applyPlan(connectTo(emulator), plan(accounts, 0, 'v7'), {
        bulk: { writeThreshold: 25, ...FAST },
      });
      expect(result.counts).toMatchObject({ written: 30, failed: 0, pending: 0 });
      const job = [...emulator.bulk.jobs.values()].at(-1);
      expect(job?.state).toBe('JobComplete');
      expect(job?.header).not.toContain('ServiceFirstSeen__c');
      expect(compositeCalls(emulator)).toBe(calls);
      const omitted = result.outcomes.filter((o) => o.status === 'written' && o.omitted);
      expect(omitted.map((o) => (o.status === 'written' ? o.omitted : []))).toEqual(
        Array.from({ length: 22 }, () => ['ServiceFirstSeen__c']),
      );
      for (const id of accounts)
        expect(emulator.org.table('Account').get(id)?.ServiceIntents__c).toMatch(/v7$/);
    } finally {
      emulator.org.hidden.delete('Account.ServiceFirstSeen__c');
    }
  });

  it("stops the run with Salesforce's errorMessage when it fails a job whole, its records pending; the next run writes them", async () => {
    const { emulator } = bulk;
    emulator.bulk.pollsBeforeDone = 0;
    const { accounts } = seedOrg(emulator.org, { companies: 30 });
    const journal = memoryJournal();
    const options = { bulk: { writeThreshold: 25, ...FAST }, journal };
    // The field was hidden from the user after describe was read.
    emulator.bulk.failNextJob = {
      after: 0,
      message: 'InvalidBatch : Field name not found : ServiceSessions__c',
    };
    const calls = compositeCalls(emulator);
    const first = await applyPlan(connectTo(emulator), plan(accounts, 0, 'v8'), options);
    expect(first.stopped?.reason).toBe('bulk-job-failed');
    expect(first.stopped?.message).toMatch(
      /^Salesforce failed Bulk API job \w+ \(update of 30 Account records\) as a whole and wrote none of its records: "InvalidBatch : Field name not found : ServiceSessions__c"\. A field it names is missing from the org or hidden from the connecting user: run `service-crm fields apply`, or give that user access to the field, then run the same sync again\./,
    );
    expect(first.counts).toMatchObject({ written: 0, pending: 30 });
    expect(compositeCalls(emulator)).toBe(calls);

    const again = await applyPlan(connectTo(emulator), plan(accounts, 0, 'v8'), options);
    expect(again.stopped).toBeUndefined();
    expect(again.counts).toMatchObject({ written: 30, failed: 0, pending: 0 });
    for (const id of accounts)
      expect(emulator.org.table('Account').get(id)?.ServiceIntents__c).toMatch(/v8$/);
  });
});
