import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { computePipelineStage } from '../src/index.js';

const opportunity = fc
  .record({ isClosed: fc.boolean(), isWon: fc.boolean() })
  .map((o) => ({ isClosed: o.isClosed || o.isWon, isWon: o.isWon })); // a won opportunity is closed
const accountType = fc.option(fc.constantFrom('Customer', 'Prospect', 'Partner', 'customer', ''), {
  nil: undefined,
});

describe('computePipelineStage (property)', () => {
  it('agrees with the priority table of section 3, first matching row wins', () => {
    fc.assert(
      fc.property(accountType, fc.array(opportunity, { maxLength: 8 }), (type, opportunities) => {
        const expected =
          type === 'Customer' || opportunities.some((o) => o.isWon)
            ? 'Customer'
            : opportunities.some((o) => !o.isClosed)
              ? 'Opportunity'
              : opportunities.length > 0
                ? 'Lost Opportunity'
                : 'Prospect';
        const result = computePipelineStage({ accountType: type, opportunities });
        expect(result.stage).toBe(expected);
        expect(result.reason.length).toBeGreaterThan(0);
      }),
    );
  });

  it('does not depend on the order of opportunities', () => {
    fc.assert(
      fc.property(fc.array(opportunity, { maxLength: 8 }), (opportunities) => {
        const stage = computePipelineStage({ opportunities }).stage;
        expect(computePipelineStage({ opportunities: [...opportunities].reverse() }).stage).toBe(
          stage,
        );
      }),
    );
  });
});
