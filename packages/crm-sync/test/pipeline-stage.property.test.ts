// Pipeline Stage against the product's table (docs/crm-sync/planning.md), written out as
// examples: every row alone and every tie between rows (the first matching row wins), then seeded
// properties that state the table's consequences without computing the stage a second way.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computePipelineStage, type OpportunityFacts } from '../src/index.js';

const open: OpportunityFacts = { isClosed: false, isWon: false };
const lost: OpportunityFacts = { isClosed: true, isWon: false };
const won: OpportunityFacts = { isClosed: true, isWon: true };

// | Priority | Stage            | Condition                                               |
// | 1        | Customer         | account type is 'Customer', or any opportunity is won   |
// | 2        | Opportunity      | any opportunity is still open (not closed)              |
// | 3        | Lost Opportunity | all opportunities are closed                            |
// | 4        | Prospect         | the account exists in the CRM                           |
// Row 4 holds for every account read, so every example also ties with it. Row 3 needs at least
// one opportunity: read as vacuously true, it would leave row 4 unreachable.
const table: Array<[string, string | null | undefined, OpportunityFacts[], string]> = [
  // Each row alone (with row 4).
  ["row 1: type 'Customer', no opportunities", 'Customer', [], 'Customer'],
  ['row 1: one won opportunity', undefined, [won], 'Customer'],
  ['row 2: one open opportunity', undefined, [open], 'Opportunity'],
  ['row 3: one lost opportunity', undefined, [lost], 'Lost Opportunity'],
  ['row 4: no type, no opportunities', undefined, [], 'Prospect'],
  // Ties: the first matching row wins.
  ['1 (type) and 1 (won): Customer', 'Customer', [won], 'Customer'],
  ['1 (type) over 2: Customer with an open opportunity', 'Customer', [open], 'Customer'],
  ['1 (type) over 3: Customer with only lost opportunities', 'Customer', [lost, lost], 'Customer'],
  ['1 (won) over 2: won and open', undefined, [open, won], 'Customer'],
  ['1 (won) over 3: won and lost, all closed', undefined, [lost, won], 'Customer'],
  ['1 (won) over 2 and 3: won, open and lost', 'Prospect', [lost, open, won], 'Customer'],
  [
    '2 over 4: open and lost (not all closed, so 3 does not hold)',
    null,
    [lost, open],
    'Opportunity',
  ],
  ['3 over 4: several lost', 'Partner', [lost, lost, lost], 'Lost Opportunity'],
  // Types that are not 'Customer' decide nothing.
  ["'customer' in lower case is not 'Customer'", 'customer', [], 'Prospect'],
  ['an empty type', '', [lost], 'Lost Opportunity'],
  ["type 'Prospect'", 'Prospect', [open], 'Opportunity'],
];

describe("computePipelineStage: the product's table (docs/crm-sync/planning.md)", () => {
  it.each(table)('%s', (_name, accountType, opportunities, stage) => {
    const result = computePipelineStage({ accountType, opportunities });
    expect(result.stage).toBe(stage);
    expect(result.reason).not.toBe('');
  });

  // Issue 12: a default org's Account Type values are `Customer - Direct` and `Customer - Channel`,
  // so the default rule is "any Type starting with `Customer`".
  it("the default rule: type 'Customer - Direct' is a Customer", () => {
    expect(
      computePipelineStage({ accountType: 'Customer - Direct', opportunities: [] }).stage,
    ).toBe('Customer');
  });
});

describe('computePipelineStage: consequences of the table (seeded properties)', () => {
  const opportunity = fc.constantFrom(open, lost, won);
  const opportunities = fc.array(opportunity, { maxLength: 8 });
  const accountType = fc.constantFrom(undefined, null, '', 'Prospect', 'Partner', 'customer');
  const seeded = { seed: 3, numRuns: 200 };

  it("type 'Customer' makes a Customer whatever the opportunities", () => {
    fc.assert(
      fc.property(opportunities, (list) => {
        expect(computePipelineStage({ accountType: 'Customer', opportunities: list }).stage).toBe(
          'Customer',
        );
      }),
      seeded,
    );
  });

  it('adding a won opportunity makes a Customer; adding an open one never gives Lost or Prospect', () => {
    fc.assert(
      fc.property(accountType, opportunities, fc.nat(8), (type, list, at) => {
        const insert = (o: OpportunityFacts) => [...list.slice(0, at), o, ...list.slice(at)];
        expect(computePipelineStage({ accountType: type, opportunities: insert(won) }).stage).toBe(
          'Customer',
        );
        expect(['Customer', 'Opportunity']).toContain(
          computePipelineStage({ accountType: type, opportunities: insert(open) }).stage,
        );
      }),
      seeded,
    );
  });

  it('does not depend on the order of opportunities', () => {
    fc.assert(
      fc.property(accountType, opportunities, (type, list) => {
        const stage = computePipelineStage({ accountType: type, opportunities: list }).stage;
        const reversed = [...list].reverse();
        expect(computePipelineStage({ accountType: type, opportunities: reversed }).stage).toBe(
          stage,
        );
      }),
      seeded,
    );
  });
});
