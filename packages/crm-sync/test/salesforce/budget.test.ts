// The API budget of a sync's writes (issue 16): composite calls of 200, a Bulk API 2.0 job per
// object from the write threshold on, two calls per create, one per feed post, one limit check.
import { describe, expect, it } from 'vitest';
import type { PlanStep, SyncPlan } from '../../src/index.js';
import { estimateWriteCalls } from '../../src/salesforce.js';

const subject = { kind: 'company', domain: 'acme.com' } as const;
const update = (object: 'Account' | 'Contact' | 'Lead', n: number): PlanStep => ({
  type: 'update',
  object,
  id: `${object}-${n}`,
  fields: { ServiceSessions__c: 1 },
  subject,
  reason: 'test',
});
const create = (n: number): PlanStep => ({
  type: 'create',
  object: 'Lead',
  fields: { LastName: 'x' },
  idempotencyKey: `Lead:${n}@acme.com`,
  duplicateCheck: { object: 'Lead', field: 'Email', value: `${n}@acme.com` },
  links: {},
  motion: null,
  subject,
  reason: 'test',
});
const plan = (steps: PlanStep[]): SyncPlan => ({
  steps,
  summary: { updates: 0, creates: 0, feedPosts: 0, skips: 0, ambiguous: 0 },
});
const times = <T>(n: number, make: (i: number) => T) =>
  Array.from({ length: n }, (_, i) => make(i));

describe('estimateWriteCalls', () => {
  it('counts nothing for a plan with nothing to write: not even the limit check', () => {
    expect(estimateWriteCalls(plan([])).total).toBe(0);
  });

  it('counts composite calls of 200 records across objects, creates and the limit check', () => {
    const steps = [
      ...times(250, (i) => update('Account', i)),
      ...times(151, (i) => update('Lead', i)),
    ];
    const estimate = estimateWriteCalls(plan([...steps, ...times(3, create)]));
    expect(estimate).toMatchObject({ composite: 3, bulkJobs: 0, creates: 6, limitCheck: 1 });
    expect(estimate.total).toBe(3 + 6 + 1);
  });

  it('puts an object with 2,000 updates in one job of 7 calls; 1,999 stay composite', () => {
    const at = estimateWriteCalls(plan(times(2000, (i) => update('Contact', i))));
    expect(at).toMatchObject({ composite: 0, bulkJobs: 1, bulkCalls: 7, total: 8 });
    const below = estimateWriteCalls(plan(times(1999, (i) => update('Contact', i))));
    expect(below).toMatchObject({ composite: 10, bulkJobs: 0, total: 11 });
    const off = estimateWriteCalls(plan(times(2000, (i) => update('Contact', i))), {
      bulk: false,
    });
    expect(off).toMatchObject({ composite: 10, bulkJobs: 0 });
    const lower = estimateWriteCalls(plan(times(300, (i) => update('Contact', i))), {
      bulk: { writeThreshold: 300 },
    });
    expect(lower).toMatchObject({ bulkJobs: 1, composite: 0 });
  });

  it('counts creates in a job with the queries of their duplicate check, as many emails a query as fit a GET URI', () => {
    const estimate = estimateWriteCalls(plan(times(2001, create)), { autoAssign: false });
    // 2,001 emails like 17@acme.com: 48,000 bytes percent-encoded, 4 queries of 12,000 at most.
    expect(estimate).toMatchObject({ bulkJobs: 1, bulkCalls: 7 + 4, creates: 0 });
  });

  it('keeps Lead creates one at a time when assignment rules run (autoAssign, the default)', () => {
    for (const estimate of [
      estimateWriteCalls(plan(times(2001, create))),
      estimateWriteCalls(plan(times(2001, create)), { autoAssign: true }),
    ])
      expect(estimate).toMatchObject({ bulkJobs: 0, bulkCalls: 0, creates: 2 * 2001 });
  });
});
