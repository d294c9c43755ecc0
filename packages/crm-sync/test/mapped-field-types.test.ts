// A mapped field's type against what the sync writes, from describe's answer: counts go to number
// fields, instants to Date/Time, text to text, and a restricted picklist takes its values only.
import { describe, expect, it } from 'vitest';
import type { FieldMapping } from '../src/plan/field-mappings.js';
import { type OrgField, refusedMappings } from '../src/plan/mapped-field-types.js';

const mapping = (apiName: `${string}__c`, source: FieldMapping['source']): FieldMapping => ({
  object: 'Lead',
  apiName,
  source,
  trigger: 'ANY',
});

const picklist = (name: string, restricted: boolean, values: string[]): OrgField => ({
  name,
  type: 'picklist',
  restrictedPicklist: restricted,
  picklistValues: values.map((value) => ({ value, active: true })),
});

describe('refusedMappings', () => {
  it('lets a restricted picklist take a closed list it holds whole, and nothing else', () => {
    const fields = new Map([
      [
        'Lead' as const,
        [
          picklist('Touch__c', true, [
            'Direct',
            'Cross Network',
            'Paid Search',
            'Paid Social',
            'Paid Shopping',
          ]),
          picklist('Intent__c', true, ['High', 'Low']),
          picklist('Role__c', true, ['CEO']),
          picklist('Open__c', false, []),
          { name: 'When__c', type: 'date' },
          { name: 'Count__c', type: 'double', precision: 18, scale: 0 },
        ],
      ],
    ]);
    const refused = refusedMappings(
      [
        mapping('Touch__c', 'firstSessionSource'),
        mapping('Intent__c', 'purchaseIntent'),
        mapping('Role__c', 'title'),
        mapping('Open__c', 'title'),
        mapping('When__c', 'lastSeen'),
        mapping('Count__c', 'pageViews'),
      ],
      fields,
    );
    expect(refused.map((r) => [r.field, r.type, r.reason])).toEqual([
      ['Lead.Intent__c', 'Picklist (restricted)', 'its values lack Very High, Medium'],
      [
        'Lead.Role__c',
        'Picklist (restricted)',
        'a restricted picklist takes its own values only, not free text',
      ],
      ['Lead.When__c', 'Date', 'a Date field takes no date and time'],
    ]);
    expect(refused[0]?.writes).toBe('one of Very High, High, Medium, Low (purchaseIntent)');
  });
});
