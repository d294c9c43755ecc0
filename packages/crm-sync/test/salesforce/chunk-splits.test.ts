// Which records of a call the org's own code refused whole, per object, and how they are halved.
import { describe, expect, it } from 'vitest';
import { halves, refusedWhole } from '../../src/salesforce/write/chunk-splits.js';

const trigger = {
  statusCode: 'CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY',
  message: 'T: execution of BeforeUpdate caused by: System.NullPointerException',
  fields: [],
};
const cpu = { statusCode: 'UNKNOWN_ERROR', message: 'Apex CPU time limit exceeded', fields: [] };
const validation = { statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION', message: 'no', fields: [] };

describe('refusedWhole', () => {
  const records = [
    { object: 'Account', n: 0 },
    { object: 'Contact', n: 1 },
    { object: 'Account', n: 2 },
    { object: 'Contact', n: 3 },
  ];

  it('names the objects whose every record failed for one reason of the org code', () => {
    const errors = [[trigger], undefined, [trigger], [validation]];
    expect(refusedWhole(records, (i) => errors[i])).toEqual([[records[0], records[2]]]);
    const cpuToo = [[cpu], [cpu], [cpu], [cpu]];
    expect(refusedWhole(records, (i) => cpuToo[i])).toHaveLength(2);
  });

  it('leaves a record alone, mixed reasons and failures of the records themselves', () => {
    expect(refusedWhole([records[0] as (typeof records)[0]], () => [trigger])).toEqual([]);
    const mixed = [[trigger], [validation], [cpu], [validation]];
    expect(refusedWhole(records, (i) => mixed[i])).toEqual([]);
  });

  it('halves a chunk, the first half the longer', () => {
    expect(halves([1, 2, 3])).toEqual([[1, 2], [3]]);
  });
});
