import { describe, expect, it } from 'vitest';
import { schemas, strictSchemas } from '../src/index.js';
import { company, contact } from './support/fixtures.js';

describe('lookup response schema', () => {
  it('accepts a response with fields it does not know (the client returns them as sent)', () => {
    const result = schemas.lookupResponseSchema.safeParse({
      company: { ...company, employees: 40 },
      contacts: [contact],
    });
    expect(result.success).toBe(true);
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

  it('strictly, rejects an intent outside the four levels and a non-UTC timestamp', () => {
    const strict = strictSchemas.companySchema;
    expect(strict.safeParse({ ...company, service_purchase_intent: 'extreme' }).success).toBe(
      false,
    );
    expect(
      strict.safeParse({ ...company, service_first_seen: '2026-01-02T03:04:05+00:00' }).success,
    ).toBe(false);
  });

  it('by default, takes a new intent level and a timestamp with an offset', () => {
    const lenient = schemas.companySchema;
    expect(lenient.safeParse({ ...company, service_purchase_intent: 'none' }).success).toBe(true);
    expect(
      lenient.safeParse({ ...company, service_first_seen: '2026-01-02T05:04:05+02:00' }).success,
    ).toBe(true);
  });

  it('rejects what is not a timestamp at all, whatever the reading', () => {
    for (const set of [schemas, strictSchemas]) {
      expect(
        set.companySchema.safeParse({ ...company, service_first_seen: '2026-01-02' }).success,
      ).toBe(false);
    }
  });
});
