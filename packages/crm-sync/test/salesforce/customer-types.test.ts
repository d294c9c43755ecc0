// Issue 12 finding 6: a default org's Account Types are `Customer - Direct` and
// `Customer - Channel`; both make the Pipeline Stage `Customer` unless configured otherwise.
import { describe, expect, it } from 'vitest';
import { computePipelineStage } from '../../src/index.js';

const stage = (accountType: string | null, customerTypes?: readonly string[]) =>
  computePipelineStage({ accountType, opportunities: [], customerTypes }).stage;

describe('Customer account types', () => {
  it('takes any Type starting with Customer by default (a default org)', () => {
    expect(stage('Customer - Direct')).toBe('Customer');
    expect(stage('Customer - Channel')).toBe('Customer');
    expect(stage('Customer')).toBe('Customer');
    expect(stage('customer')).toBe('Prospect');
    expect(stage('Channel Partner / Reseller')).toBe('Prospect');
    expect(stage(null)).toBe('Prospect');
    expect(
      computePipelineStage({ accountType: 'Customer - Direct', opportunities: [] }).reason,
    ).toBe("account type is 'Customer - Direct'");
  });

  it('takes exactly the configured values (list or test) when given', () => {
    expect(stage('Customer - Channel', ['Customer - Direct'])).toBe('Prospect');
    expect(stage('Customer - Direct', ['Customer - Direct'])).toBe('Customer');
    expect(stage('Client', ['Client'])).toBe('Customer');
    expect(
      computePipelineStage({
        accountType: 'Installed Base',
        opportunities: [{ isClosed: false, isWon: false }],
        customerTypes: (type) => type === 'Installed Base',
      }).stage,
    ).toBe('Customer');
  });
});
