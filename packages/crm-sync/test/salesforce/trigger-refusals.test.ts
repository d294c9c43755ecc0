// A customer's trigger that throws on one record fails every record written with it (the
// emulator's `throwingTrigger`). The sync splits such a chunk until the refusing record is
// alone and writes the others in the same run, through composite calls and Bulk API jobs,
// within the run's API reserve; Bulk API rows go up grouped by their parent Account.

import { type Emulator, seedOrg, TRIGGER_REFUSES } from '@service/salesforce-emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import type { PlanStep, SyncPlan } from '../../src/index.js';
import { applyPlan, setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { sessionUpdates } from './plan-steps.js';

const rest = useEmulator({ validateSchema: false, throwingTrigger: true });
const bulk = useEmulator({ validateSchema: false, throwingTrigger: true });
const budget = useEmulator({ validateSchema: false, throwingTrigger: true });
const FAST = { polling: { initialDelayMs: 1, maxDelayMs: 2 } } as const;

beforeAll(async () => {
  for (const { emulator } of [rest, bulk, budget]) await setUpFields(connectTo(emulator));
});

const planOf = (steps: PlanStep[]): SyncPlan => ({
  steps,
  summary: { updates: steps.length, creates: 0, feedPosts: 0, skips: 0, ambiguous: 0 },
});

/** `n` Accounts, the one at `refused` named so the org's trigger throws on it; their updates. */
function accountsWithOneRefused(emulator: Emulator, n: number, refused: number) {
  const { accounts } = seedOrg(emulator.org, { companies: n });
  const record = emulator.org.table('Account').get(accounts[refused] ?? '');
  if (record) record.Name = `Company ${TRIGGER_REFUSES}`;
  return { accounts, steps: sessionUpdates(accounts) };
}

/** Creates of `n` Contacts of three Accounts, interleaved as events come; one refused if asked. */
function contactCreates(emulator: Emulator, n: number, refused = -1): PlanStep[] {
  const { accounts } = seedOrg(emulator.org, { companies: 3 });
  const run = emulator.requests.length;
  return Array.from({ length: n }, (_, i): PlanStep => {
    const email = `person${i}.${run}@contacts${i}.io`;
    return {
      type: 'create',
      object: 'Contact',
      fields: {
        LastName: i === refused ? `Doe ${TRIGGER_REFUSES}` : `Doe ${i}`,
        Email: email,
        AccountId: accounts[i % 3] ?? '',
      },
      idempotencyKey: `Contact:${email}`,
      duplicateCheck: { object: 'Contact', field: 'Email', value: email },
      links: {},
      motion: null,
      subject: { kind: 'contact', email, domain: `contacts${i}.io` },
      reason: 'create contacts',
    };
  });
}

const sessions = (emulator: Emulator, ids: readonly string[]) =>
  ids.map((id) => emulator.org.table('Account').get(id)?.ServiceSessions__c);

describe('a chunk a trigger refuses whole', () => {
  it('200 Account updates, one refused by the trigger: 199 written, 1 failed with its message, in one run', async () => {
    const { emulator } = rest;
    const { accounts, steps } = accountsWithOneRefused(emulator, 200, 137);
    const result = await applyPlan(connectTo(emulator), planOf(steps), { bulk: false });
    expect(result.counts).toMatchObject({ written: 199, failed: 1, pending: 0 });
    const failed = result.outcomes.find((o) => o.status === 'failed');
    expect(failed?.step).toBe(steps[137]);
    expect(failed?.status === 'failed' && failed.errors[0]).toMatchObject({
      statusCode: 'CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY',
      message: expect.stringMatching(/^ServiceAccountTrigger: execution of BeforeUpdate/),
    });
    const held = sessions(emulator, accounts);
    expect(held.filter((v) => v !== undefined && v !== null)).toHaveLength(199);
    expect(held[137] ?? null).toBeNull();
    // One call, then two per level of halving (200 -> 1 is at most 8 levels).
    expect(emulator.count('PATCH', /\/composite\/sobjects$/)).toBeLessThanOrEqual(1 + 2 * 8);
  });

  it('isolates six refusing records of one call: a split call that writes records pays for itself', async () => {
    const { emulator } = rest;
    const refusing = [3, 41, 77, 118, 150, 196];
    const { accounts, steps } = accountsWithOneRefused(emulator, 200, refusing[0] ?? 0);
    for (const i of refusing) {
      const record = emulator.org.table('Account').get(accounts[i] ?? '');
      if (record) record.Name = `Company ${i} ${TRIGGER_REFUSES}`;
    }
    const result = await applyPlan(connectTo(emulator), planOf(steps), { bulk: false });
    // A fixed allowance of 32 calls isolated two: the others stayed failed with the trigger's error.
    expect(result.counts).toMatchObject({ written: 194, failed: 6, pending: 0 });
    const failed = result.outcomes.filter((o) => o.status === 'failed').map((o) => o.step);
    expect(failed).toEqual(refusing.map((i) => steps[i]));
  });

  it('through Bulk API: the refused chunk of the job is sent again in composite calls and split', async () => {
    const { emulator } = bulk;
    const { accounts, steps } = accountsWithOneRefused(emulator, 260, 40);
    const result = await applyPlan(connectTo(emulator), planOf(steps), {
      bulk: { writeThreshold: 100, ...FAST },
    });
    expect(emulator.count('POST', /\/jobs\/ingest$/)).toBe(1);
    expect(result.counts).toMatchObject({ written: 259, failed: 1, pending: 0 });
    const held = sessions(emulator, accounts);
    expect(held.filter((v) => v !== undefined && v !== null)).toHaveLength(259);
    expect(held[40] ?? null).toBeNull();
  });

  it('through Bulk API creates: the rows of the refused chunk are created one at a time', async () => {
    const { emulator } = bulk;
    const steps = contactCreates(emulator, 210, 5);
    const before = emulator.org.table('Contact').size;
    const result = await applyPlan(connectTo(emulator), planOf(steps), {
      bulk: { writeThreshold: 100, ...FAST },
    });
    expect(result.counts).toMatchObject({ written: 209, failed: 1, pending: 0 });
    expect(emulator.org.table('Contact').size).toBe(before + 209);
    const failed = result.outcomes.find((o) => o.status === 'failed');
    expect(failed?.step).toBe(steps[5]);
  });

  it('uploads Bulk API rows grouped by their parent Account', async () => {
    const { emulator } = bulk;
    await applyPlan(connectTo(emulator), planOf(contactCreates(emulator, 120)), {
      bulk: { writeThreshold: 100, ...FAST },
    });
    const upload = emulator.requests.findLast(
      (r) => r.method === 'PUT' && r.path.endsWith('/batches'),
    );
    const [header, ...lines] = (upload?.body ?? '').trim().split('\n');
    const cells = (line: string) => line.split(',').map((cell) => cell.replace(/^"|"$/g, ''));
    const column = cells(header ?? '').indexOf('AccountId');
    const parents = lines.map((line) => cells(line)[column]);
    const runs = parents.filter((p, i) => i === 0 || p !== parents[i - 1]);
    expect(new Set(parents).size).toBe(3);
    expect(runs).toHaveLength(3);
  });

  it('counts the extra calls of a split against the API reserve: the run stops before it', async () => {
    const { emulator } = budget;
    const { steps } = accountsWithOneRefused(emulator, 200, 199);
    const reserve = 100;
    // Room for the limit check, the first call and three halvings, no more.
    emulator.setApiUsed(emulator.apiMax - reserve - 5);
    const result = await applyPlan(connectTo(emulator), planOf(steps), {
      bulk: false,
      apiReserve: reserve,
    });
    expect(result.stopped?.reason).toBe('api-limit');
    expect(result.counts.pending).toBeGreaterThan(0);
    expect(result.counts.written).toBeGreaterThan(0);
    // This /limits call is one more.
    const limits = await connectTo(emulator).limits();
    expect(limits.max - limits.used + 1).toBeGreaterThanOrEqual(reserve);
  });

  it('bounds the splitting when the trigger refuses every record', async () => {
    const { emulator } = budget;
    emulator.trigger = (object) => (object === 'Account' ? 'unknown' : false);
    emulator.setApiUsed(0);
    const { accounts, steps } = accountsWithOneRefused(emulator, 200, 0);
    const calls = emulator.count('PATCH', /\/composite\/sobjects$/);
    const result = await applyPlan(connectTo(emulator), planOf(steps), { bulk: false });
    expect(result.counts).toMatchObject({ written: 0, failed: 200 });
    // The first call and at most the chunk's split allowance (8 x 8): no split call writes.
    expect(emulator.count('PATCH', /\/composite\/sobjects$/) - calls).toBeLessThanOrEqual(1 + 64);
    expect(sessions(emulator, accounts).every((v) => v === undefined || v === null)).toBe(true);
  });
});
