// Write only what changed: the planner leaves out fields the org already holds, as
// Salesforce stores them, and a record with nothing left is a skip with code `unchanged`.
import { describe, expect, it } from 'vitest';
import {
  type CrmSnapshot,
  type FieldValues,
  planSync,
  type SkipStep,
  type UpdateStep,
} from '../src/index.js';
import { holdsValue } from '../src/plan/stored-values.js';
import { contact, observed } from './fixtures.js';

const ACME = '001000000000000001';
const JANE = '003000000000000001';
const base: CrmSnapshot = {
  accounts: [{ Id: ACME, Website: 'https://acme.com' }],
  contacts: [{ Id: JANE, Email: 'jane@acme.com', AccountId: ACME }],
  leads: [],
  opportunities: [],
};
const seen = [observed('acme.com', ['jane@acme.com'])];
const updates = (crm: CrmSnapshot, full = false) =>
  planSync({ crm, observed: seen, full }).steps.filter((s): s is UpdateStep => s.type === 'update');

/** What Salesforce answers for a record after the write: DateTimes to the second, `+0000`. */
function asStored(fields: FieldValues): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(fields).map(([name, value]) => [
      name,
      typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value)
        ? `${value.slice(0, 19)}.000+0000`
        : value,
    ]),
  );
}

/** The org after a first, full sync: each record holds its planned values. */
function synced(): CrmSnapshot {
  const written = new Map(updates(base, true).map((u) => [u.id, asStored(u.fields)]));
  return {
    ...base,
    accounts: base.accounts.map((a) => ({ ...a, ...written.get(a.Id) })),
    contacts: base.contacts.map((c) => ({ ...c, ...written.get(c.Id) })),
  };
}

describe('write only what changed', () => {
  it('plans no update for records that hold every planned value: a skip `unchanged` each', () => {
    const plan = planSync({ crm: synced(), observed: seen });
    expect(plan.summary.updates).toBe(0);
    const unchanged = plan.steps.filter((s): s is SkipStep => s.type === 'skip');
    expect(unchanged.map((s) => [s.code, s.candidates])).toEqual([
      ['unchanged', [ACME]],
      ['unchanged', [JANE]],
    ]);
  });

  it('updates only the fields whose value differs, on the record that holds them', () => {
    const crm = synced();
    const account = { ...crm.accounts[0], Id: ACME, ServiceSessions__c: 2 };
    const [update, ...more] = updates({ ...crm, accounts: [account] });
    expect(more).toEqual([]);
    expect(update).toMatchObject({
      object: 'Account',
      id: ACME,
      fields: { ServiceSessions__c: 3 },
    });
    expect(Object.keys(update?.fields ?? {})).toEqual(['ServiceSessions__c']);
  });

  it('writes a field that was not read (absent from the record), whatever the org holds', () => {
    const crm = synced();
    const { ServiceLastSeen__c: _left, ...account } = crm.accounts[0] ?? { Id: ACME };
    const [update] = updates({ ...crm, accounts: [{ ...account, Id: ACME }] });
    expect(update?.fields).toEqual({ ServiceLastSeen__c: '2026-02-10T17:30:00.000Z' });
  });

  it('writes every field with `full`, held or not', () => {
    expect(updates(synced(), true).map((u) => Object.keys(u.fields).length)).toEqual(
      updates(base).map((u) => Object.keys(u.fields).length),
    );
    expect(updates(synced(), true)).toHaveLength(2);
  });

  it('sees a changed observation as a change (one more session)', () => {
    const busier = [
      { ...observed('acme.com'), contacts: [contact('jane@acme.com', { sessions: 4 })] },
    ];
    const steps = planSync({ crm: synced(), observed: busier }).steps;
    const changed = steps.filter((s): s is UpdateStep => s.type === 'update');
    expect(changed.map((u) => [u.id, u.fields])).toEqual([[JANE, { ServiceSessions__c: 4 }]]);
  });
});

describe('holdsValue compares as Salesforce stores', () => {
  it('DateTimes to the second, in any offset', () => {
    const dateTime = { type: 'DateTime' } as const;
    expect(holdsValue('2026-02-10T17:30:00.999Z', '2026-02-10T17:30:00.000+0000', dateTime)).toBe(
      true,
    );
    expect(holdsValue('2026-02-10T17:30:00.000Z', '2026-02-10T18:30:00.000+0100', dateTime)).toBe(
      true,
    );
    expect(holdsValue('2026-02-10T17:30:01.000Z', '2026-02-10T17:30:00.000+0000', dateTime)).toBe(
      false,
    );
  });

  it("numbers at the field's scale", () => {
    const money = { type: 'Number', precision: 18, scale: 2 } as const;
    expect(holdsValue(2.344, 2.34, money)).toBe(true);
    expect(holdsValue(2.346, 2.34, money)).toBe(false);
    expect(holdsValue(7.4, 7, { type: 'Number', precision: 18, scale: 0 })).toBe(true);
    expect(holdsValue(7.6, 7, { type: 'Number', precision: 18, scale: 0 })).toBe(false);
  });

  it('LongTextArea as stored (exactly), an empty text as null', () => {
    const long = { type: 'LongTextArea', length: 32768, visibleLines: 5 } as const;
    expect(holdsValue('a\nb', 'a\nb', long)).toBe(true);
    expect(holdsValue('a\nb', 'a\nb ', long)).toBe(false);
    expect(holdsValue('', null, long)).toBe(true);
    expect(holdsValue(null, null, undefined)).toBe(true);
    expect(holdsValue('x', null, undefined)).toBe(false);
  });
});
