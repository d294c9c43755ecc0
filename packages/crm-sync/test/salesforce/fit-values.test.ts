// Values fitted to the org's fields before they are sent, against an org with State and
// Country/Territory Picklists, the standard lengths, email checks and a restricted picklist:
// no record is lost to an address, a length, an email or a picklist value; what was cut or left
// out is said in the step's outcome.
import {
  customFieldDescribe,
  type Emulator,
  presetOptions,
  seedOrg,
  startEmulator,
} from '@service/salesforce-emulator';
import { afterEach, describe, expect, it } from 'vitest';
import { reportSync } from '../../src/cli/sync-report.js';
import type { PlanStep } from '../../src/index.js';
import { applyPlan } from '../../src/salesforce.js';
import { connectTo } from './helpers.js';
import { leadCreate, plan } from './plan-steps.js';

let emulator: Emulator | undefined;
afterEach(async () => {
  await emulator?.close();
  emulator = undefined;
});

async function customerOrg(picklists = true) {
  emulator = await startEmulator({
    ...presetOptions('customer', { stateCountryPicklists: picklists }),
    validateSchema: false,
  });
  return emulator;
}

/** A Contact created after the duplicate check on its email. */
const contactCreate = (email: string, fields: Record<string, string>): PlanStep => ({
  type: 'create',
  object: 'Contact',
  fields: { LastName: 'Doe', Email: email, ...fields },
  idempotencyKey: `Contact:${email}`,
  duplicateCheck: { object: 'Contact', field: 'Email', value: email },
  links: {},
  motion: 'New ICP visitor',
  subject: { kind: 'contact', email, domain: 'doe.io' },
  reason: 'create contact',
});

const stored = (org: Emulator, outcome: { status: string; id?: string } | undefined) =>
  org.org.table(outcome?.status === 'written' ? 'Contact' : 'none').get(outcome?.id ?? '');

describe('countries and states', () => {
  it('are written as the codes the org lists; an unknown country is left out, not the Contact', async () => {
    const org = await customerOrg();
    const result = await applyPlan(
      connectTo(org),
      plan([
        contactCreate('a@doe.io', { MailingCountry: 'GB' }),
        contactCreate('b@doe.io', { MailingCountry: 'United Kingdom' }),
        contactCreate('c@doe.io', { MailingCountry: 'UK', MailingCity: 'Leeds' }),
        contactCreate('d@doe.io', { MailingCountry: 'US', MailingState: 'CA' }),
        contactCreate('e@doe.io', { MailingCountry: 'Deutschland', MailingState: 'Bayern' }),
      ]),
      { bulk: false },
    );
    expect(result.counts).toMatchObject({ written: 5, failed: 0 });
    const contacts = result.outcomes.map((o) => stored(org, o));
    expect(contacts.map((c) => c?.MailingCountryCode ?? null)).toEqual([
      'GB',
      'GB',
      'GB',
      'US',
      null,
    ]);
    expect(contacts[1]?.MailingCountry).toBe('United Kingdom');
    expect(contacts[2]?.MailingCity).toBe('Leeds');
    expect(contacts[3]).toMatchObject({ MailingStateCode: 'CA', MailingState: 'California' });
    expect(contacts[4]).toMatchObject({ LastName: 'Doe' });
    expect(contacts[4]?.MailingCountry).toBeUndefined();
    const unknown = result.outcomes[4];
    expect(unknown?.status === 'written' && unknown.fitted).toEqual([
      expect.objectContaining({ field: 'MailingCountry', change: 'dropped' }),
      expect.objectContaining({ field: 'MailingState', change: 'dropped' }),
    ]);
  });

  it('keep a state only when the org lists it for that country', async () => {
    const org = await customerOrg();
    const result = await applyPlan(
      connectTo(org),
      plan([contactCreate('f@doe.io', { MailingCountry: 'CA', MailingState: 'Texas' })]),
      { bulk: false },
    );
    expect(result.counts.written).toBe(1);
    expect(stored(org, result.outcomes[0])).toMatchObject({ MailingCountryCode: 'CA' });
    expect(stored(org, result.outcomes[0])?.MailingStateCode).toBeUndefined();
  });

  it('an address the org still refuses (FIELD_INTEGRITY_EXCEPTION) is left out, the rest written', async () => {
    const org = await customerOrg();
    // A state with no country: nothing to fit it to before sending; the org refuses it.
    const result = await applyPlan(
      connectTo(org),
      plan([contactCreate('g@doe.io', { MailingState: 'Bavaria', Title: 'CTO' })]),
      { bulk: false },
    );
    const [outcome] = result.outcomes;
    expect(outcome).toMatchObject({ status: 'written', omitted: ['MailingState'] });
    expect(stored(org, outcome)).toMatchObject({ Title: 'CTO' });
  });

  it('an address a Bulk API job refuses is left out the same way, the record written', async () => {
    const org = await customerOrg();
    const steps = Array.from({ length: 3 }, (_, i) =>
      contactCreate(`bulk${i}@doe.io`, i === 0 ? { MailingState: 'Bavaria' } : { Title: 'CTO' }),
    );
    const result = await applyPlan(connectTo(org), plan(steps), {
      bulk: { writeThreshold: 3, polling: { initialDelayMs: 1, maxDelayMs: 2 } },
    });
    expect(org.bulk.operations()).toContain('insert');
    expect(result.counts).toMatchObject({ written: 3, failed: 0 });
    expect(result.outcomes[0]).toMatchObject({ status: 'written', omitted: ['MailingState'] });
  });

  it("are written as the country's name in the text field when the picklists are off", async () => {
    const org = await customerOrg(false);
    const result = await applyPlan(
      connectTo(org),
      plan([
        contactCreate('h@doe.io', { MailingCountry: 'GB' }),
        contactCreate('i@doe.io', { MailingCountry: 'USA' }),
      ]),
      { bulk: false },
    );
    expect(result.outcomes.map((o) => stored(org, o)?.MailingCountry)).toEqual([
      'United Kingdom',
      'United States',
    ]);
  });
});

describe('lengths, email addresses and restricted picklists', () => {
  it('cut text to the length describe gives (a 58-character first name to 40)', async () => {
    const org = await customerOrg();
    const first = 'Maximiliana-Josephina Theodora Anastasia Wilhelmina-Louise'; // 58
    expect(first).toHaveLength(58);
    const result = await applyPlan(
      connectTo(org),
      plan([contactCreate('j@doe.io', { FirstName: first })]),
      { bulk: false },
    );
    expect(stored(org, result.outcomes[0])?.FirstName).toBe(first.slice(0, 40));
    const [outcome] = result.outcomes;
    expect(outcome?.status === 'written' && outcome.fitted).toEqual([
      { field: 'FirstName', change: 'cut', reason: 'cut to 40 characters' },
    ]);
    // The sync's summary says so in one line.
    const lines: string[] = [];
    const io = { out: (line: string) => lines.push(line), err: () => {}, progress: () => {} };
    reportSync(io as never, { result, dryRun: false, json: false } as never);
    expect(lines).toContain(
      "fitted: 1 values cut or left out to fit the org's fields; first: create Contact Contact:j@doe.io: FirstName cut to 40 characters. --json lists each (outcomes[].fitted).",
    );
  });

  it('never cut between the two halves of an emoji (UTF-16 code units)', async () => {
    const org = await customerOrg();
    const split = `${'x'.repeat(39)}😀 and more`; // the emoji takes units 40 and 41
    const whole = `${'y'.repeat(38)}😀 and more`; // the emoji takes units 39 and 40
    const result = await applyPlan(
      connectTo(org),
      plan([
        contactCreate('k@doe.io', { FirstName: split }),
        contactCreate('l@doe.io', { FirstName: whole }),
      ]),
      { bulk: false },
    );
    expect(result.outcomes.map((o) => stored(org, o)?.FirstName)).toEqual([
      'x'.repeat(39),
      `${'y'.repeat(38)}😀`,
    ]);
  });

  it('leave out an email that is not an address from an update; a create keyed on it is not made', async () => {
    const org = await customerOrg();
    const [lead = ''] = seedOrg(org.org, { companies: 0, leads: 1 }).leads;
    const result = await applyPlan(
      connectTo(org),
      plan([
        {
          type: 'update',
          object: 'Lead',
          id: lead,
          fields: { Email: 'ada at doe.io', Title: 'CEO' },
          subject: { kind: 'contact', email: 'ada@doe.io', domain: 'doe.io' },
          reason: 'update existing',
        },
        leadCreate('bob at doe.io', { Title: 'CTO' }),
      ]),
      { bulk: false },
    );
    const [update, create] = result.outcomes;
    expect(update?.status).toBe('written');
    expect(org.org.table('Lead').get(lead)).toMatchObject({ Title: 'CEO' });
    expect(org.org.table('Lead').get(lead)?.Email).not.toBe('ada at doe.io');
    expect(update?.status === 'written' && update.fitted?.map((f) => f.field)).toEqual(['Email']);
    // Without its email a later run could not find the Lead, and would create it again.
    expect(create).toMatchObject({ status: 'skipped', step: { code: 'invalid-email' } });
    expect(create?.status === 'skipped' && create.reason).toMatch(/is not created/);
    expect([...org.org.table('Lead').values()].filter((l) => l.Title === 'CTO')).toEqual([]);
  });

  it('leave out a value a restricted picklist does not list', async () => {
    const org = await customerOrg();
    org.org.fields.get('Lead')?.set('Tier__c', {
      ...customFieldDescribe('Tier__c', 'Tier', 'picklist'),
      length: 255,
      restrictedPicklist: true,
      picklistValues: [{ value: 'Gold', label: 'Gold', active: true, defaultValue: false }],
    });
    const profile = String(org.org.table('User').get(org.org.userId)?.ProfileId);
    org.org.setFieldPermission(profile, 'Lead.Tier__c', true, true);
    const result = await applyPlan(
      connectTo(org),
      plan([
        leadCreate('m@doe.io', { Tier__c: 'Platinum' }),
        leadCreate('n@doe.io', { Tier__c: 'Gold' }),
      ]),
      // The customer preset's validation rule asks a new Lead for an Industry.
      { bulk: false, createDefaults: { Lead: { fields: { Industry: 'Other' } } } },
    );
    expect(result.counts.written).toBe(2);
    const tiers = result.outcomes.map(
      (o) => org.org.table('Lead').get(o.status === 'written' ? o.id : '')?.Tier__c,
    );
    expect(tiers).toEqual([undefined, 'Gold']);
    const [platinum] = result.outcomes;
    expect(platinum?.status === 'written' && platinum.fitted).toEqual([
      expect.objectContaining({ field: 'Tier__c', change: 'dropped' }),
    ]);
  });
});

describe('an update the record already holds once fitted', () => {
  /** A Lead field an admin made shorter than the values mapped to it. */
  async function orgWithShortField() {
    const org = await customerOrg();
    org.org.fields.get('Lead')?.set('Short__c', {
      ...customFieldDescribe('Short__c', 'Short', 'string'),
      length: 20,
    });
    const profile = String(org.org.table('User').get(org.org.userId)?.ProfileId);
    org.org.setFieldPermission(profile, 'Lead.Short__c', true, true);
    const [lead = ''] = seedOrg(org.org, { companies: 0, leads: 1 }).leads;
    return { org, lead };
  }
  const long = 'Enterprise software for the mid-market'; // 38
  const leadUpdate = (id: string, fields: Record<string, string>): PlanStep => ({
    type: 'update',
    object: 'Lead',
    id,
    fields,
    subject: { kind: 'contact', email: 'ada@doe.io', domain: 'doe.io' },
    reason: 'update existing',
  });
  /** The CRM as a run reads it after the first one: the Lead with what the org stored. */
  const crmOf = (org: Emulator, lead: string) => {
    const record = org.org.table('Lead').get(lead);
    return {
      accounts: [],
      contacts: [],
      leads: [{ Id: lead, Short__c: record?.Short__c, Title: record?.Title }],
    };
  };

  it('is not sent again: a value cut to the field is what the record holds (skipped, unchanged)', async () => {
    const { org, lead } = await orgWithShortField();
    const first = await applyPlan(connectTo(org), plan([leadUpdate(lead, { Short__c: long })]), {
      bulk: false,
    });
    expect(first.outcomes[0]?.status).toBe('written');
    expect(org.org.table('Lead').get(lead)?.Short__c).toBe(long.slice(0, 20));
    const stamp = org.org.table('Lead').get(lead)?.LastModifiedDate;

    // The planner compares the record with the whole value, so the next run plans it again.
    const again = plan([leadUpdate(lead, { Short__c: long })]);
    const second = await applyPlan(connectTo(org), again, { bulk: false, crm: crmOf(org, lead) });
    expect(second.outcomes[0]).toMatchObject({
      status: 'skipped',
      step: { type: 'skip', code: 'unchanged', candidates: [lead] },
    });
    expect(org.org.table('Lead').get(lead)?.LastModifiedDate).toBe(stamp);

    // Without the CRM the plan was made from, the same write goes out every run.
    const blind = await applyPlan(connectTo(org), again, { bulk: false });
    expect(blind.outcomes[0]?.status).toBe('written');
  });

  it('sends only the values the record does not hold, and reports no cut for the one left out', async () => {
    const { org, lead } = await orgWithShortField();
    await applyPlan(connectTo(org), plan([leadUpdate(lead, { Short__c: long })]), { bulk: false });
    const result = await applyPlan(
      connectTo(org),
      plan([leadUpdate(lead, { Short__c: long, Title: 'CEO' })]),
      { bulk: false, crm: crmOf(org, lead) },
    );
    const [outcome] = result.outcomes;
    expect(outcome).toMatchObject({ status: 'written', step: { fields: { Title: 'CEO' } } });
    expect(outcome?.step.type === 'update' && Object.keys(outcome.step.fields)).toEqual(['Title']);
    expect(outcome?.status === 'written' && outcome.fitted).toBeFalsy();
    expect(org.org.table('Lead').get(lead)).toMatchObject({
      Title: 'CEO',
      Short__c: long.slice(0, 20),
    });
  });
});
