import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CrmSyncError,
  chunk,
  collectCompositeResults,
  type RecordUpdate,
  toCompositeUpdates,
} from '../src/index.js';

const id = (n: number) => `001${String(n).padStart(15, '0')}`;
const update = (n: number): RecordUpdate => ({
  object: 'Account',
  id: id(n),
  fields: { ServiceSessions__c: n },
});

describe('chunk', () => {
  it('never exceeds the size, keeps order, loses nothing', () => {
    fc.assert(
      fc.property(fc.array(fc.integer()), fc.integer({ min: 1, max: 250 }), (items, size) => {
        const chunks = chunk(items, size);
        expect(chunks.every((c) => c.length >= 1 && c.length <= size)).toBe(true);
        expect(chunks.flat()).toEqual(items);
        expect(chunks.length).toBe(Math.ceil(items.length / size));
      }),
    );
  });
  it('refuses a size that is not a positive integer', () => {
    expect(() => chunk([1], 0)).toThrow(RangeError);
  });
});

describe('toCompositeUpdates', () => {
  // "Records per batch update: 200 maximum" (docs/crm-sync/applying.md; Salesforce's limit of an
  // sObject Collections call). The number is written here, not the code's constant, so a changed
  // constant fails here.
  // https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections_update.htm
  it('builds PATCH /composite/sobjects bodies of 200 records, the last one the rest, in order', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), (n) => {
        const records = Array.from({ length: n }, (_, i) => update(i));
        const bodies = toCompositeUpdates(records);
        expect(bodies.every((b) => b.allOrNone === false)).toBe(true);
        const sizes = bodies.map((b) => b.records.length);
        expect(sizes.slice(0, -1).every((size) => size === 200)).toBe(true);
        expect(sizes.length).toBe(Math.ceil(n / 200));
        expect(bodies.flatMap((b) => b.records.map((r) => r.id))).toEqual(records.map((r) => r.id));
      }),
      { numRuns: 30, seed: 200 },
    );
  });

  it.each([
    [199, [199]],
    [200, [200]],
    [201, [200, 1]],
    [450, [200, 200, 50]],
  ])('%i records -> bodies of %j', (n, sizes) => {
    const bodies = toCompositeUpdates(Array.from({ length: n }, (_, i) => update(i)));
    expect(bodies.map((b) => b.records.length)).toEqual(sizes);
  });

  it('shapes each record as { attributes: { type }, id, ...fields }', () => {
    const [body] = toCompositeUpdates([
      {
        object: 'Lead',
        id: '00Q000000000001',
        fields: { ServiceSessions__c: 2, ServicePersona__c: null },
      },
    ]);
    expect(body).toEqual({
      allOrNone: false,
      records: [
        {
          attributes: { type: 'Lead' },
          id: '00Q000000000001',
          ServiceSessions__c: 2,
          ServicePersona__c: null,
        },
      ],
    });
  });

  it('names every record without an id, of another object, or with a reserved field', () => {
    const bad = [
      update(1),
      { object: 'Opportunity', id: id(2), fields: {} },
      { object: 'Lead', id: '', fields: {} },
      { object: 'Contact', id: id(3), fields: { attributes: 1 } },
    ] as unknown as RecordUpdate[];
    try {
      toCompositeUpdates(bad);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(CrmSyncError);
      expect((error as CrmSyncError).issues).toEqual([
        'records[1].object: "Opportunity" is not Account, Contact or Lead',
        'records[2].id: "" is not a 15- or 18-character record id',
        'records[3].fields.attributes: reserved in a composite record',
      ]);
    }
  });
});

describe('collectCompositeResults', () => {
  it('pairs each result with its record, across bodies, in request order', () => {
    const bodies = toCompositeUpdates(Array.from({ length: 201 }, (_, i) => update(i)));
    const first = bodies[0]?.records.map((r, i) =>
      i === 7
        ? {
            id: r.id,
            success: false,
            errors: [{ statusCode: 'UNABLE_TO_LOCK_ROW', message: 'locked', fields: [] }],
          }
        : { id: r.id, success: true, errors: [] },
    );
    const second = [
      { success: false, errors: [{ statusCode: 'ENTITY_IS_DELETED', message: 'gone' }] },
    ];
    const outcomes = collectCompositeResults(bodies, [first ?? [], second]);
    expect(outcomes).toHaveLength(201);
    expect(outcomes.filter((o) => !o.ok)).toEqual([
      {
        object: 'Account',
        id: id(7),
        ok: false,
        errors: [{ statusCode: 'UNABLE_TO_LOCK_ROW', message: 'locked', fields: [] }],
      },
      {
        object: 'Account',
        id: id(200),
        ok: false,
        errors: [{ statusCode: 'ENTITY_IS_DELETED', message: 'gone', fields: [] }],
      },
    ]);
  });

  it('fails every record of a body refused as a whole', () => {
    const bodies = toCompositeUpdates([update(1), update(2)]);
    const outcomes = collectCompositeResults(bodies, [
      [{ errorCode: 'REQUEST_LIMIT_EXCEEDED', message: 'limit' }],
    ]);
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.errors[0]?.statusCode))).toEqual([
      'REQUEST_LIMIT_EXCEEDED',
      'REQUEST_LIMIT_EXCEEDED',
    ]);
  });

  it('refuses responses that cannot be paired', () => {
    const bodies = toCompositeUpdates([update(1), update(2)]);
    expect(() => collectCompositeResults(bodies, [])).toThrow(
      'Expected 1 composite responses, got 0',
    );
    expect(() => collectCompositeResults(bodies, [[{ success: true, errors: [] }]])).toThrow(
      expect.objectContaining({ code: 'invalid_response' }),
    );
  });
});
