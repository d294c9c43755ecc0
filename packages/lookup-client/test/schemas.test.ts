import { describe, expect, it } from 'vitest';
import { schemas } from '../src/index.js';
import { company, contact } from './support/fixtures.js';

describe('lookup response schema', () => {
  it('accepts a response and keeps fields it does not know', () => {
    const parsed = schemas.lookupResponseSchema.parse({
      company: { ...company, employees: 40 },
      contacts: [contact],
    });
    expect(parsed.company).toMatchObject({ employees: 40 });
  });

  it('rejects a response missing a required field', () => {
    const { service_visitors: _dropped, ...withoutVisitors } = company;
    const result = schemas.lookupResponseSchema.safeParse({
      company: withoutVisitors,
      contacts: [],
    });
    expect(result.success).toBe(false);
  });

  it('requires both activity arrays when activity was asked for', () => {
    const result = schemas.lookupResponseWithActivitySchema.safeParse({
      company,
      contacts: [{ ...contact, site_activity: [] }],
    });
    expect(result.success).toBe(false);
  });

  it('rejects an intent outside the four levels and a non-UTC timestamp', () => {
    expect(
      schemas.companySchema.safeParse({ ...company, service_purchase_intent: 'extreme' }).success,
    ).toBe(false);
    expect(
      schemas.companySchema.safeParse({ ...company, service_first_seen: '2026-01-02' }).success,
    ).toBe(false);
  });
});
