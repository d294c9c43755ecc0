import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type CrmSnapshot,
  emailMatchKey,
  type Motion,
  motionActions,
  type ObservedCompany,
  planSync,
  registrableDomain,
  toCompositeUpdates,
} from '../src/index.js';
import { company, contact } from './fixtures.js';

const domains = [
  'acme.com',
  'www.acme.com',
  'beta.co.uk',
  'gmail.com',
  'gamma.io',
  '10.0.0.1',
  'intranet',
];
const locals = ['jane', 'bob', 'Jane', 'ann'];
const recordId = (prefix: string) =>
  fc.integer({ min: 0, max: 30 }).map((n) => `${prefix}${String(n).padStart(15, '0')}`);
const email = fc
  .tuple(fc.constantFrom(...locals), fc.constantFrom(...domains))
  .map(([l, d]) => `${l}@${d}`);

const crm: fc.Arbitrary<CrmSnapshot> = fc.record({
  // Record ids are unique within an object, as in an org.
  accounts: fc.uniqueArray(
    fc.record({
      Id: recordId('001'),
      Website: fc.constantFrom(...domains.map((d) => `https://${d}/`), null),
      Type: fc.constantFrom('Customer', null),
    }),
    { maxLength: 8, selector: (r) => r.Id },
  ),
  contacts: fc.uniqueArray(
    fc.record({ Id: recordId('003'), Email: fc.option(email, { nil: null }) }),
    {
      maxLength: 8,
      selector: (r) => r.Id,
    },
  ),
  leads: fc.uniqueArray(
    fc.record({
      Id: recordId('00Q'),
      Email: email,
      IsConverted: fc.boolean(),
      ConvertedContactId: fc.option(recordId('003'), { nil: null }),
    }),
    { maxLength: 8, selector: (r) => r.Id },
  ),
  opportunities: fc.array(
    fc.record({ AccountId: recordId('001'), IsClosed: fc.boolean(), IsWon: fc.boolean() }),
    { maxLength: 6 },
  ),
});

const observedCompanies: fc.Arbitrary<ObservedCompany[]> = fc.array(
  fc
    .record({ domain: fc.constantFrom(...domains), emails: fc.array(email, { maxLength: 4 }) })
    .map(({ domain, emails }) => ({
      company: company(domain),
      contacts: emails.map((e) =>
        contact(e, { purchaseIntent: e.startsWith('j') ? 'very_high' : 'low' }),
      ),
    })),
  { maxLength: 6 },
);

const motions: fc.Arbitrary<Motion[]> = fc.uniqueArray(
  fc.record({
    name: fc.constantFrom('A', 'B', 'C'),
    conditions: fc.record(
      { purchaseIntent: fc.constantFrom(['very_high'] as const, ['low'] as const) },
      { requiredKeys: [] },
    ),
    actions: fc.subarray([...motionActions]),
  }),
  { selector: (m) => m.name, maxLength: 3 },
);

const settings = fc.record({
  updateExisting: fc.boolean(),
  createLeads: fc.boolean(),
  createAccounts: fc.boolean(),
  createContacts: fc.boolean(),
});

function groups<T>(items: readonly T[], key: (t: T) => string | null): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    if (k !== null) map.set(k, [...(map.get(k) ?? []), item]);
  }
  return map;
}

describe('planSync invariants (property)', () => {
  it('no deletes, no duplicate creates, everything accounted for, nothing written to an ambiguous match', () => {
    fc.assert(
      fc.property(
        crm,
        observedCompanies,
        settings,
        motions,
        (snapshot, observed, options, motionList) => {
          const plan = planSync({
            crm: snapshot,
            observed,
            settings: options,
            motions: motionList,
          });
          const steps = plan.steps;

          // Only the four step types exist: there is no delete.
          expect(
            steps.every((s) => ['update', 'create', 'feedPost', 'skip'].includes(s.type)),
          ).toBe(true);

          // No duplicate creates, and none of a record the CRM already has.
          const creates = steps.flatMap((s) => (s.type === 'create' ? [s] : []));
          expect(new Set(creates.map((c) => c.idempotencyKey)).size).toBe(creates.length);
          const crmEmails = new Set(
            [...snapshot.contacts, ...snapshot.leads].flatMap((r) =>
              r.Email ? [emailMatchKey(r.Email)] : [],
            ),
          );
          const crmDomains = new Set(
            snapshot.accounts.map((a) => (a.Website ? registrableDomain(a.Website) : null)),
          );
          for (const c of creates) {
            if (c.object === 'Account') expect(crmDomains.has(c.duplicateCheck.value)).toBe(false);
            else expect(crmEmails.has(c.duplicateCheck.value)).toBe(false);
            for (const key of Object.values(c.links)) {
              expect(creates.findIndex((x) => x.idempotencyKey === key)).toBeLessThan(
                creates.indexOf(c),
              );
            }
          }

          // Every observed company and person has a step.
          const subjects = new Set(
            steps.map((s) =>
              s.subject.kind === 'company' ? `c:${s.subject.domain}` : `p:${s.subject.email}`,
            ),
          );
          for (const entry of observed) {
            expect(
              subjects.has(`c:${registrableDomain(entry.company.domain) ?? entry.company.domain}`),
            ).toBe(true);
            for (const person of entry.contacts)
              expect(subjects.has(`p:${emailMatchKey(person.email)}`)).toBe(true);
          }

          // Nothing written to an ambiguous match (computed here, independently of the planner).
          const ambiguous = new Set<string>();
          for (const accounts of groups(snapshot.accounts, (a) =>
            a.Website ? registrableDomain(a.Website) : null,
          ).values()) {
            if (accounts.length > 1) for (const a of accounts) ambiguous.add(a.Id);
          }
          for (const leads of groups(
            snapshot.leads.filter((l) => !l.IsConverted),
            (l) => emailMatchKey(l.Email ?? ''),
          ).values()) {
            if (leads.length > 1) for (const l of leads) ambiguous.add(l.Id);
          }
          const written = steps.flatMap((s) =>
            s.type === 'update'
              ? [s.id]
              : s.type === 'feedPost' && 'id' in s.target
                ? [s.target.id]
                : [],
          );
          for (const id of written) expect(ambiguous.has(id)).toBe(false);

          // No update of a converted Lead; updates only when enabled. (These plans stay far below
          // 200 updates: the batch limit is checked by the test of thousands below.)
          const converted = new Set(snapshot.leads.filter((l) => l.IsConverted).map((l) => l.Id));
          const updates = steps.flatMap((s) => (s.type === 'update' ? [s] : []));
          for (const u of updates) expect(u.object === 'Lead' && converted.has(u.id)).toBe(false);
          if (!options.updateExisting) expect(updates).toEqual([]);
          expect(
            plan.summary.updates +
              plan.summary.creates +
              plan.summary.feedPosts +
              plan.summary.skips,
          ).toBe(steps.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  // 200 records per batch update at most (docs/crm-sync/applying.md), asserted as that number.
  it('a plan of thousands of updates batches into calls of at most 200', () => {
    const n = 1000;
    const observed = Array.from({ length: n }, (_, i) => ({
      company: company(`company-${i}.com`),
      contacts: [],
    }));
    const snapshot: CrmSnapshot = {
      accounts: observed.map((o, i) => ({
        Id: `001${String(i).padStart(15, '0')}`,
        Website: o.company.domain,
      })),
      contacts: [],
      leads: [],
    };
    const plan = planSync({ crm: snapshot, observed });
    const updates = plan.steps.flatMap((s) => (s.type === 'update' ? [s] : []));
    expect(updates).toHaveLength(n);
    expect(toCompositeUpdates(updates).map((b) => b.records.length)).toEqual([
      200, 200, 200, 200, 200,
    ]);
  });
});
