// Journal keys are what an interrupted run is resumed by: the same write must give the same key
// in every run and every version (a key that changed would send a journaled write again).
import { describe, expect, it } from 'vitest';
import type { PlanStep } from '../../src/index.js';
import { stepKey } from '../../src/salesforce.js';

const update = (fields: Record<string, string | number | null>): PlanStep => ({
  type: 'update',
  object: 'Account',
  id: '001000000000001AAA',
  fields,
  subject: { kind: 'company', domain: 'acme.com' },
  reason: 'update existing',
});

describe('stepKey', () => {
  it('keys an update by its record and field values, in any field order, as earlier versions did', () => {
    const fields = {
      ServiceSessions__c: 3,
      Service_Intents__c: 'Pricing, Docs',
      ServiceFirstSeen__c: '2026-03-02T09:00:00.000Z',
      servicePersona__c: null,
    };
    // The key earlier versions wrote to journals for this step.
    const key = 'update:Account:001000000000001AAA:VK8KvAD4k-YghDSC';
    const step = update(fields);
    expect(stepKey(step)).toBe(key);
    expect(stepKey(step)).toBe(key);
    const reordered = Object.fromEntries(Object.entries(fields).reverse());
    expect(stepKey(update(reordered))).toBe(key);
    expect(stepKey(update({ ...fields, ServiceSessions__c: 4 }))).not.toBe(key);
  });
});
