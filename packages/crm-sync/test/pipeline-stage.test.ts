import { describe, expect, it } from 'vitest';
import { computePipelineStage } from '../src/index.js';

const open = { isClosed: false, isWon: false };
const lost = { isClosed: true, isWon: false };
const won = { isClosed: true, isWon: true };

describe('computePipelineStage', () => {
  it.each([
    ['Customer type beats open opportunities', 'Customer', [open], 'Customer'],
    ['a won opportunity makes a customer', undefined, [lost, won, open], 'Customer'],
    ['an open opportunity', 'Prospect', [lost, open], 'Opportunity'],
    ['all closed, none won', null, [lost, lost], 'Lost Opportunity'],
    ['no opportunities', undefined, [], 'Prospect'],
  ] as const)('%s', (_name, accountType, opportunities, stage) => {
    expect(computePipelineStage({ accountType, opportunities }).stage).toBe(stage);
  });

  it('says which row decided', () => {
    expect(computePipelineStage({ opportunities: [lost, open] }).reason).toBe(
      '1 of 2 opportunities open',
    );
  });
});
