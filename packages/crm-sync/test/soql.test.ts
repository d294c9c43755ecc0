import fc from 'fast-check';
import { parseQuery } from 'soql-parser-js';
import { describe, expect, it } from 'vitest';
import { buildQuery, CrmSyncError, escapeSoqlString } from '../src/index.js';

function selected(query: string): string[] {
  return (parseQuery(query).fields ?? []).map((f) =>
    f.type === 'Field' ? f.field : f.type === 'FieldRelationship' ? (f.rawValue ?? '') : '',
  );
}

/** The literals of the first condition's IN list, quotes included. */
function inValues(query: string): string[] {
  const left = parseQuery(query).where?.left;
  return left != null && 'value' in left && Array.isArray(left.value) ? left.value : [];
}

describe('buildQuery', () => {
  // The fields each object's read selects are asserted on what a read sends to an org, against
  // the docs' table: test/salesforce/read-soql.test.ts.
  it('reads Account owners only with owner sync', () => {
    const [query] = buildQuery('Account', { ownerSync: true });
    expect(selected(query ?? '')).toEqual(
      expect.arrayContaining(['OwnerId', 'Owner.Email', 'Owner.Name']),
    );
    expect(selected(buildQuery('Account')[0] ?? '')).not.toContain('OwnerId');
  });

  it('drops unreadable fields (case-insensitive) but never Id', () => {
    const [query] = buildQuery('Lead', {
      unreadable: ['title', 'Owner.Name', 'Id'],
      fields: ['ServiceSessions__c'],
    });
    const fields = selected(query ?? '');
    expect(fields).not.toContain('Title');
    expect(fields).not.toContain('Owner.Name');
    expect(fields).toContain('Id');
    expect(fields.at(-1)).toBe('ServiceSessions__c');
  });

  it('writes conditions and a limit that parse', () => {
    const [query] = buildQuery('Contact', {
      where: [
        { field: 'Email', in: ['a@x.com', "o'brien@x.com"] },
        { field: 'IsDeleted', value: false },
        { field: 'LastModifiedDate', op: '>', value: 3 },
      ],
      limit: 50,
    });
    expect(query).toMatch(
      / WHERE Email IN \('a@x.com', 'o\\'brien@x.com'\) AND IsDeleted = FALSE AND LastModifiedDate > 3 LIMIT 50$/,
    );
    const parsed = parseQuery(query ?? '');
    expect(parsed.limit).toBe(50);
  });

  it('splits a long IN list so no query passes the limit, keeping every value once', () => {
    const emails = Array.from(
      { length: 5000 },
      (_, i) => `person.number.${i}@example-company-${i % 97}.com`,
    );
    const queries = buildQuery('Lead', { where: [{ field: 'Email', in: emails }] });
    expect(queries.length).toBeGreaterThan(1);
    // Salesforce's default limit: 100,000 characters per SOQL statement
    // (https://developer.salesforce.com/docs/atlas.en-us.salesforce_app_limits_cheatsheet.meta/salesforce_app_limits_cheatsheet/salesforce_app_limits_platform_soslsoql.htm).
    expect(queries.filter((q) => q.length > 100_000)).toEqual([]);
    const values = queries.flatMap((q) => inValues(q).map((v) => v.slice(1, -1)));
    expect(values).toEqual(emails);
  });

  it("builds a query of exactly Salesforce's 100,000 characters, and refuses one more", () => {
    const one = (value: string) => buildQuery('Lead', { where: [{ field: 'Email', in: [value] }] });
    const overhead = (one('x')[0] ?? '').length - 1;
    const fits = one('x'.repeat(100_000 - overhead));
    expect(fits.map((q) => q.length)).toEqual([100_000]);
    expect(() => one('x'.repeat(100_001 - overhead))).toThrow(
      expect.objectContaining({ code: 'query_too_long' }),
    );
  });

  it('splits to any maxLength and never exceeds it (property)', () => {
    let splits = 0;
    fc.assert(
      fc.property(
        fc.array(fc.string({ maxLength: 30 }), { minLength: 1, maxLength: 200 }),
        // From just above the longest one-value query (76 + 62 characters) up: most runs split.
        fc.integer({ min: 140, max: 1000 }),
        (ids, maxLength) => {
          const queries = buildQuery('Account', { where: [{ field: 'Id', in: ids }], maxLength });
          if (queries.length > 1) splits += 1;
          expect(queries.filter((q) => q.length > maxLength)).toEqual([]);
          expect(queries.flatMap(inValues)).toEqual(ids.map(escapeSoqlString));
        },
      ),
      { numRuns: 100 },
    );
    expect(splits).toBeGreaterThan(0);
  });

  it('fills a split query to exactly maxLength, never a separator more', () => {
    const where = [{ field: 'Id', in: ['a', 'b', 'c', 'd'] }];
    const [one] = buildQuery('Account', { where: [{ field: 'Id', in: ['a'] }] });
    const two = (one?.length ?? 0) + ", 'b'".length;
    expect(buildQuery('Account', { where, maxLength: two })).toEqual([
      expect.stringMatching(/IN \('a', 'b'\)$/),
      expect.stringMatching(/IN \('c', 'd'\)$/),
    ]);
    for (const maxLength of [two - 1, two - 2]) {
      expect(buildQuery('Account', { where, maxLength })).toHaveLength(4);
    }
  });

  it('returns no query for an empty IN list, and refuses what cannot be built', () => {
    expect(buildQuery('Lead', { where: [{ field: 'Email', in: [] }] })).toEqual([]);
    expect(() => buildQuery('Lead', { where: [{ field: 'Email; DROP', value: 'x' }] })).toThrow(
      CrmSyncError,
    );
    expect(() => buildQuery('Lead', { fields: ['Name, (SELECT Id FROM Tasks)'] })).toThrow(
      /Not a field name/,
    );
    expect(() => buildQuery('Lead', { limit: 0 })).toThrow(/limit/);
    expect(() => buildQuery('User' as never)).toThrow(/Cannot query/);
    expect(() =>
      buildQuery('Lead', { where: [{ field: 'Email', in: ['x'.repeat(600)] }], maxLength: 500 }),
    ).toThrow(expect.objectContaining({ code: 'query_too_long' }));
  });
});

describe('escapeSoqlString', () => {
  it.each([
    ["o'brien", "'o\\'brien'"],
    ['back\\slash', "'back\\\\slash'"],
    ['say "hi"', '\'say \\"hi\\"\''],
    ['line\nbreak\ttab\rret', "'line\\nbreak\\ttab\\rret'"],
    ['100%_sure', "'100%_sure'"],
  ])('%j -> %s', (value, literal) => {
    expect(escapeSoqlString(value)).toBe(literal);
  });

  it('always yields a literal the parser reads back as one value (property)', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (value) => {
        const [query] = buildQuery('Lead', { where: [{ field: 'Email', value }] });
        const where = parseQuery(query ?? '').where?.left as { value: string; operator: string };
        expect(where.operator).toBe('=');
        expect(where.value.startsWith("'") && where.value.endsWith("'")).toBe(true);
      }),
      { numRuns: 200 },
    );
  });
});
