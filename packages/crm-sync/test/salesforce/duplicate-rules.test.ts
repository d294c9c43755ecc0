// The org's standard duplicate rules refuse a create that matches existing records, through REST
// and Bulk API 2.0 alike. The sync lets the org's verdict stand: the create is reported as a
// duplicate with the matched ids, is no failure of the run, and is not sent again while its data
// is unchanged; `duplicateRules: 'allowSave'` saves it. Any other refusal is remembered the same
// way, a failure of the moment is not.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/config.js';
import { EXIT, type Io } from '../../src/cli/output.js';
import { exitCodeOf, reportSync } from '../../src/cli/sync-report.js';
import type { PlanStep } from '../../src/index.js';
import { type ApplyOptions, applyPlan, fileJournal, memoryJournal } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { plan, update } from './plan-steps.js';

const env = useEmulator({ duplicateRules: true });

/** A Contact at `accountId`, created after the duplicate check on its email. */
const contactCreate = (
  email: string,
  first: string,
  last: string,
  accountId: string,
): PlanStep => ({
  type: 'create',
  object: 'Contact',
  fields: { FirstName: first, LastName: last, Email: email, AccountId: accountId },
  idempotencyKey: `Contact:${email}`,
  duplicateCheck: { object: 'Contact', field: 'Email', value: email },
  links: {},
  motion: 'New ICP visitor',
  subject: { kind: 'contact', email, domain: 'initech.com' },
  reason: 'create contact',
});

/** An Account with a Contact, Robert Paulson, in the org. */
function orgWithPaulson() {
  const { org } = env.emulator;
  const account = org.insert('Account', { Name: `Initech ${org.table('Account').size}` });
  const contact = org.insert('Contact', {
    FirstName: 'Robert',
    LastName: 'Paulson',
    Email: `bob${account}@initech.com`,
    AccountId: account,
  });
  return { account, contact };
}

const creates = (object: string) =>
  env.emulator.requests.filter(
    (r) => r.method === 'POST' && r.path.endsWith(`/sobjects/${object}`),
  );

/** Applies `steps` twice with one journal, cleared between the runs as `service-crm sync` does. */
async function twice(steps: PlanStep[], options: ApplyOptions = {}) {
  const connection = connectTo(env.emulator);
  const journal = memoryJournal();
  const first = await applyPlan(connection, plan(steps), { bulk: false, ...options, journal });
  await journal.clear();
  const sentBefore = env.emulator.requests.length;
  const second = await applyPlan(connection, plan(steps), { bulk: false, ...options, journal });
  return { first, second, sentSecond: env.emulator.requests.slice(sentBefore) };
}

describe('the org duplicate rules', () => {
  it('refuse a Contact matching one: reported with the matched id, no failure, not sent again', async () => {
    const { account, contact } = orgWithPaulson();
    const before = creates('Contact').length;
    const step = contactCreate('rob.paulson@example.com', 'Rob', 'Paulson', account);
    const { first, second, sentSecond } = await twice([step]);
    expect(first.outcomes[0]).toMatchObject({
      status: 'skipped',
      refusal: { statusCode: 'DUPLICATES_DETECTED', matchedIds: [contact] },
    });
    expect(exitCodeOf(first)).toBe(EXIT.ok);
    expect(creates('Contact').length).toBe(before + 1);
    expect(second.outcomes[0]).toMatchObject({
      status: 'skipped',
      reason: 'refused last run as DUPLICATES_DETECTED; data unchanged',
    });
    expect(sentSecond.filter((r) => r.method === 'POST')).toEqual([]);
  });

  it('refuse a Lead matching a Contact of the same name at the same company', async () => {
    const { account, contact } = orgWithPaulson();
    const company = String(env.emulator.org.table('Account').get(account)?.Name);
    const lead: PlanStep = {
      type: 'create',
      object: 'Lead',
      fields: { FirstName: 'Robert', LastName: 'Paulson', Company: company, Email: 'rp@mail.io' },
      idempotencyKey: 'Lead:rp@mail.io',
      duplicateCheck: { object: 'Lead', field: 'Email', value: 'rp@mail.io' },
      links: {},
      motion: null,
      subject: { kind: 'contact', email: 'rp@mail.io', domain: 'mail.io' },
      reason: 'create lead',
    };
    const result = await applyPlan(connectTo(env.emulator), plan([lead]), { bulk: false });
    expect(result.outcomes[0]).toMatchObject({
      status: 'skipped',
      refusal: { statusCode: 'DUPLICATES_DETECTED', matchedIds: [contact] },
    });
    expect(result.counts.failed).toBe(0);
  });

  it('save the duplicate with allowSave, even after a run that respected the rules', async () => {
    const { account } = orgWithPaulson();
    const step = contactCreate('robert.p@example.com', 'Robert', 'Paulson', account);
    const connection = connectTo(env.emulator);
    const journal = memoryJournal();
    await applyPlan(connection, plan([step]), { bulk: false, journal });
    const saved = await applyPlan(connection, plan([step]), {
      bulk: false,
      journal,
      duplicateRules: 'allowSave',
    });
    expect(saved.outcomes[0]?.status).toBe('written');
    expect(creates('Contact').at(-1)?.headers['sforce-duplicate-rule-header']).toBe(
      'allowSave=true',
    );
  });

  it('take Bulk API 2.0 rows refused as duplicates the same way, and write them with allowSave', async () => {
    const { account, contact } = orgWithPaulson();
    const steps = [
      contactCreate('bulk.rob@example.com', 'Rob', 'Paulson', account),
      contactCreate('bulk.marla@example.com', 'Marla', 'Singer', account),
    ];
    const bulk = { writeThreshold: 1, polling: { initialDelayMs: 1, maxDelayMs: 2 } };
    const { first, second, sentSecond } = await twice(steps, { bulk });
    expect(first.outcomes.map((o) => o.status)).toEqual(['skipped', 'written']);
    expect(first.outcomes[0]).toMatchObject({ refusal: { statusCode: 'DUPLICATES_DETECTED' } });
    expect(exitCodeOf(first)).toBe(EXIT.ok);
    expect(second.outcomes[0]).toMatchObject({ refusal: { earlierRun: true } });
    expect(sentSecond.filter((r) => r.method === 'PUT' || r.path.endsWith('/Contact'))).toEqual([]);
    const saved = await applyPlan(connectTo(env.emulator), plan(steps.slice(0, 1)), {
      bulk,
      duplicateRules: 'allowSave',
    });
    expect(saved.outcomes[0]?.status).toBe('written');
    expect(saved.outcomes[0]).not.toMatchObject({ id: contact });
  });

  it('remember any other refusal until the data changes, and no failure of the moment', async () => {
    const { org } = env.emulator;
    const [refusedId, lockedId] = ['a', 'b'].map((n) => org.insert('Account', { Name: `R ${n}` }));
    org.recordErrors.set(String(refusedId), {
      statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
      message: 'Industry is required',
    });
    // The first record of each composite call stays locked through the connection's 4 retries.
    env.emulator.inject({ method: 'PATCH', path: '/composite/sobjects', kind: 'lock', times: 5 });
    const connection = connectTo(env.emulator);
    const journal = memoryJournal();
    const steps = [
      update(String(lockedId), { Website: 'https://v1.example' }),
      update(String(refusedId), { Website: 'https://v1.example' }),
    ];
    const options = { bulk: false as const, journal };
    const first = await applyPlan(connection, plan(steps), options);
    expect(first.counts.failed).toBe(2);
    await journal.clear();
    const second = await applyPlan(connection, plan(steps), options);
    expect(second.outcomes.map((o) => o.status)).toEqual(['written', 'skipped']);
    expect(second.outcomes[1]).toMatchObject({
      reason: 'refused last run as FIELD_CUSTOM_VALIDATION_EXCEPTION; data unchanged',
    });
    org.recordErrors.clear();
    const changed = await applyPlan(
      connection,
      plan([update(String(refusedId), { Website: 'https://v2.example' })]),
      options,
    );
    expect(changed.outcomes[0]?.status).toBe('written');
    expect(org.table('Account').get(String(refusedId))?.Website).toBe('https://v2.example');
  });

  it('are summed up by status code with a remedy, not a line per record', async () => {
    const { account } = orgWithPaulson();
    const { org } = env.emulator;
    const ids = ['x', 'y'].map((n) => org.insert('Account', { Name: `V ${n}` }));
    for (const id of ids)
      org.recordErrors.set(id, { statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'no' });
    const steps = [
      contactCreate('sum.rob@example.com', 'Rob', 'Paulson', account),
      ...ids.map((id) => update(id, { Website: 'https://v.example' })),
    ];
    const { second } = await twice(steps);
    const lines: string[] = [];
    const io: Io = {
      out: (l) => lines.push(l),
      err: () => {},
      progress: () => {},
      stdin: async () => '',
    };
    reportSync(io, {
      connection: undefined,
      plan: plan(steps),
      source: {} as never,
      budget: {} as never,
      result: second,
      dryRun: false,
      json: false,
    });
    expect(lines.filter((l) => l.startsWith('  '))).toEqual([
      '  DUPLICATES_DETECTED: 1 (0 this run; 1 not sent again: refused before, data unchanged): the org\'s duplicate rules matched existing records; merge them, or set duplicateRules: "allowSave" to save over the rules\' alerts',
      "  FIELD_CUSTOM_VALIDATION_EXCEPTION: 2 (0 this run; 2 not sent again: refused before, data unchanged): a validation rule of the org refused the values; its message names the rule: ask the org's admin, or give the value it wants in the settings",
    ]);
    expect(exitCodeOf(second)).toBe(EXIT.ok);
    org.recordErrors.clear();
  });
});

describe('the duplicateRules setting of the settings file', () => {
  it('is respect by default, takes allowSave, and refuses anything else clearly', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dupes-config-'));
    const file = async (value: unknown) => {
      const path = join(dir, `${Math.random()}.json`);
      await writeFile(path, JSON.stringify(value));
      return path;
    };
    expect((await loadConfig(undefined)).duplicateRules).toBe('respect');
    expect((await loadConfig(await file({ duplicateRules: 'allowSave' }))).duplicateRules).toBe(
      'allowSave',
    );
    await expect(loadConfig(await file({ duplicateRules: 'force' }))).rejects.toThrow(
      /duplicateRules: Invalid option/,
    );
  });
});

describe('the journal of refusals', () => {
  it('loads a journal of an earlier version and keeps the refusals when a finished run clears it', async () => {
    const path = join(await mkdtemp(join(tmpdir(), 'dupes-journal-')), 'journal.json');
    await writeFile(path, JSON.stringify({ 'create:Lead:old@x.io': '00Q000000000001AAA' }));
    const journal = await fileJournal(path);
    expect(journal.get('create:Lead:old@x.io')).toBe('00Q000000000001AAA');
    await journal.record({ 'refused:create:Lead:a@x.io': 'STRING_TOO_LONG abc' });
    await journal.clear?.();
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({
      'refused:create:Lead:a@x.io': 'STRING_TOO_LONG abc',
    });
  });
});
