// Plan steps as planSync shapes them, for tests that apply a plan of their own.
import type { PlanStep, SyncPlan } from '../../src/index.js';

/** An update of an existing Account. */
export const update = (id: string, fields: Record<string, string>): PlanStep => ({
  type: 'update',
  object: 'Account',
  id,
  fields,
  subject: { kind: 'company', domain: `${id}.com` },
  reason: 'update existing',
});

/** An update of each Account's ServiceSessions__c to its position in `ids` plus one. */
export const sessionUpdates = (ids: readonly string[]): PlanStep[] =>
  ids.map((id, i) => ({
    type: 'update',
    object: 'Account',
    id,
    fields: { ServiceSessions__c: i + 1 },
    subject: { kind: 'company', domain: `company${i}.com` },
    reason: 'update existing',
  }));

/** A Lead created after the duplicate check on its email. */
export const leadCreate = (email: string, fields: Record<string, string> = {}): PlanStep => ({
  type: 'create',
  object: 'Lead',
  fields: { LastName: 'Doe', Company: 'Acme', Email: email, ...fields },
  idempotencyKey: `Lead:${email}`,
  duplicateCheck: { object: 'Lead', field: 'Email', value: email },
  links: {},
  motion: 'New ICP visitor',
  subject: { kind: 'contact', email, domain: 'acme.io' },
  reason: 'create lead',
});

/** A plan of these steps (its summary is not read when applying). */
export const plan = (steps: PlanStep[]): SyncPlan => ({
  steps,
  summary: { updates: 0, creates: 0, feedPosts: 0, skips: 0, ambiguous: 0 },
});
