import { describe, expect, it } from 'vitest';
import { CrmSyncError, defineFieldMappings, type FieldMapping } from '../src/index.js';

function problems(mappings: unknown): readonly string[] {
  try {
    defineFieldMappings(mappings as FieldMapping[]);
  } catch (error) {
    expect(error).toBeInstanceOf(CrmSyncError);
    expect((error as CrmSyncError).code).toBe('invalid_mapping');
    return (error as CrmSyncError).issues;
  }
  throw new Error('expected a rejection');
}

describe('defineFieldMappings', () => {
  it('accepts good mappings and returns them', () => {
    const mappings: FieldMapping[] = [
      { object: 'Lead', apiName: 'Visit_Count__c', source: 'sessions', trigger: 'ANY' },
      { object: 'Account', apiName: 'acme__Visitors__c', source: 'visitors', trigger: 'UPDATE' },
    ];
    expect(defineFieldMappings(mappings)).toEqual(mappings);
  });

  it.each([
    [{ object: 'Lead', apiName: 'Visits', source: 'sessions', trigger: 'ANY' }, 'apiName'],
    [{ object: 'Lead', apiName: 'Bad__Name__c__c', source: 'sessions', trigger: 'ANY' }, 'apiName'],
    [
      { object: 'Lead', apiName: `${'A'.repeat(38)}__c`, source: 'sessions', trigger: 'ANY' },
      'apiName',
    ],
    [{ object: 'Opportunity', apiName: 'X__c', source: 'sessions', trigger: 'ANY' }, 'object'],
    [{ object: 'Lead', apiName: 'X__c', source: 'shoeSize', trigger: 'ANY' }, 'source'],
    [{ object: 'Lead', apiName: 'X__c', source: 'visitors', trigger: 'ANY' }, 'no value for Lead'],
    [
      { object: 'Account', apiName: 'X__c', source: 'email', trigger: 'ANY' },
      'no value for Account',
    ],
    [{ object: 'Lead', apiName: 'X__c', source: 'sessions', trigger: 'ALWAYS' }, 'trigger'],
    [
      { object: 'Lead', apiName: 'ServiceSessions__c', source: 'sessions', trigger: 'ANY' },
      'already written',
    ],
  ])('rejects %j (%s)', (mapping, mentions) => {
    const issues = problems([mapping]);
    expect(issues).toHaveLength(1);
    expect(issues[0]).toContain(mentions);
  });

  it('lists every problem at once, and a destination named twice', () => {
    const issues = problems([
      { object: 'Lead', apiName: 'A__c', source: 'sessions', trigger: 'ANY' },
      { object: 'Lead', apiName: 'a__c', source: 'pageViews', trigger: 'ANY' },
      { object: 'Nope', apiName: 'B', source: 'x', trigger: 'y' },
    ]);
    expect(issues).toHaveLength(5);
    expect(issues[0]).toMatch(/^mappings\[1\]: Lead.a__c is already written/);
  });

  it('rejects a non-array and non-object entries', () => {
    expect(() => defineFieldMappings('x' as never)).toThrow(/must be an array/);
    expect(problems([null])).toEqual(['mappings[0]: expected an object']);
  });
});
