import { describe, expect, it } from 'vitest';
import {
  type CrmSnapshot,
  CrmSyncError,
  type Motion,
  type PlanStep,
  planSync,
  type SkipStep,
} from '../src/index.js';
import { contact, observed } from './fixtures.js';

const empty: CrmSnapshot = { accounts: [], contacts: [], leads: [], opportunities: [] };
const id = (prefix: string, n: number) => `${prefix}${String(n).padStart(15, '0')}`;
const ACME = id('001', 1);
const byType = (steps: readonly PlanStep[], type: PlanStep['type']) =>
  steps.filter((s) => s.type === type);
const skips = (steps: readonly PlanStep[]) => byType(steps, 'skip') as SkipStep[];

describe('planSync', () => {
  it('updates the Account matched by normalised website domain, never by substring', () => {
    const crm: CrmSnapshot = {
      ...empty,
      accounts: [
        { Id: ACME, Website: 'https://www.Acme.com/en' },
        { Id: id('001', 2), Website: 'notacme.com' },
      ],
    };
    const plan = planSync({ crm, observed: [observed('acme.com')] });
    expect(byType(plan.steps, 'update')).toEqual([
      expect.objectContaining({
        object: 'Account',
        id: ACME,
        reason: `Account ${ACME} has the website domain acme.com`,
      }),
    ]);
    expect(plan.summary).toMatchObject({ updates: 1, creates: 0 });
  });

  it('writes nothing to either of two matching Accounts and reports it', () => {
    const crm = {
      ...empty,
      accounts: [
        { Id: ACME, Website: 'acme.com' },
        { Id: id('001', 2), Website: 'http://acme.com' },
      ],
    };
    const plan = planSync({
      crm,
      observed: [observed('acme.com')],
      settings: { createAccounts: true },
    });
    expect(byType(plan.steps, 'update')).toEqual([]);
    expect(byType(plan.steps, 'create')).toEqual([]);
    expect(skips(plan.steps)).toEqual([
      expect.objectContaining({ code: 'ambiguous', candidates: [ACME, id('001', 2)] }),
    ]);
    expect(plan.summary.ambiguous).toBe(1);
  });

  it('a Contact beats a Lead for the same email; two Leads are ambiguous', () => {
    const crm: CrmSnapshot = {
      ...empty,
      contacts: [{ Id: id('003', 1), Email: 'Jane@Acme.com' }],
      leads: [
        { Id: id('00Q', 1), Email: 'jane@acme.com' },
        { Id: id('00Q', 2), Email: 'bob@acme.com' },
        { Id: id('00Q', 3), Email: 'BOB@acme.com' },
      ],
    };
    const plan = planSync({
      crm,
      observed: [observed('acme.com', ['jane@acme.com', 'bob@acme.com'])],
    });
    expect(byType(plan.steps, 'update')).toEqual([
      expect.objectContaining({ object: 'Contact', id: id('003', 1) }),
    ]);
    expect(skips(plan.steps).find((s) => s.code === 'ambiguous')).toMatchObject({
      candidates: [id('00Q', 2), id('00Q', 3)],
      subject: { kind: 'contact', email: 'bob@acme.com' },
    });
  });

  it('routes a converted Lead to its Contact, or skips it with the reason', () => {
    const crm: CrmSnapshot = {
      ...empty,
      leads: [
        {
          Id: id('00Q', 1),
          Email: 'jane@acme.com',
          IsConverted: true,
          ConvertedContactId: id('003', 9),
        },
        { Id: id('00Q', 2), Email: 'bob@acme.com', IsConverted: true, ConvertedContactId: null },
      ],
    };
    const plan = planSync({
      crm,
      observed: [observed('acme.com', ['jane@acme.com', 'bob@acme.com'])],
    });
    expect(byType(plan.steps, 'update')).toEqual([
      expect.objectContaining({
        object: 'Contact',
        id: id('003', 9),
        reason: `Lead ${id('00Q', 1)} with email jane@acme.com was converted to Contact ${id('003', 9)}`,
      }),
    ]);
    expect(skips(plan.steps)).toContainEqual(
      expect.objectContaining({ code: 'converted-lead', candidates: [id('00Q', 2)] }),
    );
    expect(plan.steps.some((s) => s.type === 'update' && s.object === 'Lead')).toBe(false);
  });

  it('never creates a Lead for the email of a converted Lead', () => {
    const crm = {
      ...empty,
      leads: [{ Id: id('00Q', 1), Email: 'jane@acme.com', IsConverted: true }],
    };
    const plan = planSync({
      crm,
      observed: [observed('acme.com', ['jane@acme.com'])],
      settings: { createLeads: true },
    });
    expect(byType(plan.steps, 'create')).toEqual([]);
    expect(skips(plan.steps).map((s) => s.code)).toContain('converted-lead');
  });

  it('creates nothing by default: updates on, creation off', () => {
    const plan = planSync({ crm: empty, observed: [observed('acme.com', ['jane@acme.com'])] });
    expect(byType(plan.steps, 'create')).toEqual([]);
    expect(skips(plan.steps).map((s) => s.code)).toEqual(['not-enabled', 'not-enabled']);
  });

  it('skips updates when "Update existing Accounts and Leads" is off', () => {
    const crm = { ...empty, accounts: [{ Id: ACME, Website: 'acme.com' }] };
    const plan = planSync({
      crm,
      observed: [observed('acme.com')],
      settings: { updateExisting: false },
    });
    expect(plan.steps).toEqual([
      expect.objectContaining({ type: 'skip', code: 'not-enabled', candidates: [ACME] }),
    ]);
  });

  it('creates a Lead for a motion, with the motion as creation trigger and an idempotency key', () => {
    const motion: Motion = {
      name: 'High intent',
      conditions: { purchaseIntent: ['high', 'very_high'], minSessions: 2 },
      actions: ['createLead', 'postTimeline'],
    };
    const plan = planSync({
      crm: empty,
      observed: [observed('acme.com', ['jane@acme.com'])],
      motions: [motion],
    });
    const [create] = byType(plan.steps, 'create');
    expect(create).toMatchObject({
      object: 'Lead',
      idempotencyKey: 'Lead:jane@acme.com',
      duplicateCheck: { object: 'Lead', field: 'Email', value: 'jane@acme.com' },
      motion: 'High intent',
      fields: {
        Email: 'jane@acme.com',
        LastName: 'Doe',
        Company: 'acme.com Inc',
        ServiceCreationTrigger__c: 'High intent',
      },
    });
    const [post] = byType(plan.steps, 'feedPost');
    expect(post).toMatchObject({
      target: { object: 'Lead', idempotencyKey: 'Lead:jane@acme.com' },
      motion: 'High intent',
    });
    expect(post?.type === 'feedPost' && post.text).toContain('3 sessions (1 high intent)');
  });

  it('motion conditions must all hold', () => {
    const motion: Motion = {
      name: 'Pricing',
      conditions: { signals: ['Pricing page'], minSessions: 5 },
      actions: ['createLead'],
    };
    const plan = planSync({
      crm: empty,
      observed: [observed('acme.com', ['jane@acme.com'])],
      motions: [motion],
    });
    expect(byType(plan.steps, 'create')).toEqual([]);
  });

  it('creates an Account and a Contact linked to it, Account first', () => {
    const motion: Motion = {
      name: 'ICP',
      conditions: { icps: ['SaaS'] },
      actions: ['createAccountAndContact'],
    };
    const plan = planSync({
      crm: empty,
      observed: [observed('acme.com', ['jane@acme.com'])],
      motions: [motion],
      facts: { companies: { 'acme.com': { icps: ['SaaS'] } } },
    });
    const creates = byType(plan.steps, 'create');
    expect(
      creates.map((c) => c.type === 'create' && [c.object, c.idempotencyKey, c.links]),
    ).toEqual([
      ['Account', 'Account:acme.com', {}],
      ['Contact', 'Contact:jane@acme.com', { AccountId: 'Account:acme.com' }],
    ]);
    expect(creates[0]).toMatchObject({
      fields: { Name: 'acme.com Inc', Website: 'https://acme.com', ServiceICP__c: 'SaaS' },
    });
  });

  it('attaches a created Contact to the existing Account by id; uses the stage in motions', () => {
    const crm: CrmSnapshot = {
      ...empty,
      accounts: [{ Id: ACME, Website: 'acme.com', Type: 'Prospect' }],
      opportunities: [{ AccountId: ACME, IsClosed: false, IsWon: false }],
    };
    const motion: Motion = {
      name: 'Open opps',
      conditions: { pipelineStages: ['Opportunity'] },
      actions: ['createAccountAndContact'],
    };
    const plan = planSync({
      crm,
      observed: [observed('acme.com', ['jane@acme.com'])],
      motions: [motion],
    });
    expect(byType(plan.steps, 'create')).toEqual([
      expect.objectContaining({
        object: 'Contact',
        links: {},
        fields: expect.objectContaining({ AccountId: ACME }),
      }),
    ]);
    const lost = planSync({
      crm: { ...crm, opportunities: [{ AccountId: ACME, IsClosed: true, IsWon: false }] },
      observed: [observed('acme.com', ['jane@acme.com'])],
      motions: [motion],
    });
    expect(byType(lost.steps, 'create')).toEqual([]);
  });

  it('never makes a company of a free-mail domain, but still plans the person', () => {
    const plan = planSync({
      crm: empty,
      observed: [observed('gmail.com', ['jane@gmail.com'])],
      settings: { createAccounts: true, createLeads: true },
    });
    expect(skips(plan.steps)).toEqual([
      expect.objectContaining({
        code: 'free-mail',
        subject: { kind: 'company', domain: 'gmail.com' },
      }),
    ]);
    expect(byType(plan.steps, 'create')).toEqual([
      expect.objectContaining({ object: 'Lead', idempotencyKey: 'Lead:jane@gmail.com' }),
    ]);
  });

  it('skips a company whose domain is an IP or has no suffix', () => {
    const plan = planSync({ crm: empty, observed: [observed('10.0.0.1'), observed('intranet')] });
    expect(skips(plan.steps).map((s) => s.code)).toEqual(['invalid-domain', 'invalid-domain']);
  });

  it('plans a subject observed twice once', () => {
    const plan = planSync({
      crm: empty,
      observed: [
        observed('acme.com', ['jane@acme.com']),
        observed('www.acme.com', ['JANE@acme.com']),
      ],
      settings: { createAccounts: true, createLeads: true },
    });
    expect(
      byType(plan.steps, 'create').map((c) => c.type === 'create' && c.idempotencyKey),
    ).toEqual(['Account:acme.com', 'Lead:jane@acme.com']);
    expect(skips(plan.steps).map((s) => s.code)).toEqual([
      'duplicate-subject',
      'duplicate-subject',
    ]);
  });

  it('refuses invalid motions with every problem listed', () => {
    const bad = [
      { name: '', conditions: {}, actions: ['createLead'] },
      {
        name: 'x',
        conditions: { minSessions: -1, purchaseIntent: ['urgent'] },
        actions: ['deleteLead'],
      },
      { name: 'x', conditions: { pipelineStages: ['Won'] }, actions: [] },
    ] as unknown as Motion[];
    try {
      planSync({ crm: empty, observed: [], motions: bad });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CrmSyncError);
      expect((error as CrmSyncError).issues).toEqual([
        'motions[0].name is empty',
        'motions[1].actions: "deleteLead" is not one of createLead, createAccountAndContact, postTimeline',
        'motions[1].conditions.purchaseIntent: "urgent" is not one of low, medium, high, very_high',
        'motions[1].conditions.minSessions must be a whole number of sessions, got -1',
        'motions[2].conditions.pipelineStages: "Won" is not one of Customer, Opportunity, Lost Opportunity, Prospect',
        'motions[2].name "x" is used twice',
      ]);
    }
  });

  it('refuses invalid mappings in the settings', () => {
    const mappings = [
      { object: 'Lead', apiName: 'Nope', source: 'sessions', trigger: 'ANY' },
    ] as never;
    expect(() => planSync({ crm: empty, observed: [], settings: { mappings } })).toThrow(
      expect.objectContaining({ code: 'invalid_mapping' }),
    );
  });

  it('writes mapped fields on update', () => {
    const crm = { ...empty, leads: [{ Id: id('00Q', 1), Email: 'jane@acme.com' }] };
    const mappings = [
      { object: 'Lead', apiName: 'Visits__c', source: 'sessions', trigger: 'UPDATE' },
    ] as const;
    const plan = planSync({
      crm,
      observed: [observed('acme.com', ['jane@acme.com'])],
      settings: { mappings },
    });
    expect(byType(plan.steps, 'update')).toEqual([
      expect.objectContaining({
        object: 'Lead',
        fields: expect.objectContaining({ Visits__c: 3 }),
      }),
    ]);
  });

  it('is deterministic: the same input, in any order, gives the same plan', () => {
    const input = {
      crm: empty,
      observed: [observed('b.com', ['z@b.com', 'a@b.com']), observed('a.com', ['m@a.com'])],
      settings: { createLeads: true },
    };
    const reordered = [...input.observed]
      .reverse()
      .map((entry) => ({ ...entry, contacts: [...entry.contacts].reverse() }));
    expect(planSync(input)).toEqual(planSync({ ...input, observed: reordered }));
  });

  it('posts on the company Account when the person has no record', () => {
    const crm = { ...empty, accounts: [{ Id: ACME, Website: 'acme.com' }] };
    const motion: Motion = { name: 'Timeline', conditions: {}, actions: ['postTimeline'] };
    const plan = planSync({
      crm,
      observed: [{ ...observed('acme.com'), contacts: [contact('jane@acme.com')] }],
      motions: [motion],
    });
    expect(byType(plan.steps, 'feedPost')).toEqual([
      expect.objectContaining({
        target: { object: 'Account', id: ACME },
        idempotencyKey: 'FeedItem:Timeline:jane@acme.com:2026-02-10T17:30:00.000Z',
      }),
    ]);
  });
});
