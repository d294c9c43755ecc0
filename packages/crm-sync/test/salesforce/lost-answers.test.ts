// Writes whose connection closed before an answer: a create is looked for in the org (its
// duplicate check) and sent again; one whose every attempt failed is set aside as `failed`
// with NETWORK while the run goes on, and the next run writes it, once.
import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { applyPlan } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { leadCreate, plan } from './plan-steps.js';

const env = useEmulator();
const leads = (emulator: typeof env.emulator, email: string) =>
  [...emulator.org.table('Lead').values()].filter((l) => l.Email === email).length;

describe('applyPlan when a write loses its connection', () => {
  it('sends a create again after looking for it, and writes it once', async () => {
    const { emulator } = env;
    seedOrg(emulator.org, { companies: 1 });
    emulator.inject({ kind: 'closed-connection', method: 'POST', path: '/sobjects/Lead' });
    const result = await applyPlan(connectTo(emulator), plan([leadCreate('once@lost.io')]));
    expect(result.counts.written).toBe(1);
    expect(leads(emulator, 'once@lost.io')).toBe(1);
    // The create, its look-up after the lost answer, the create again.
    expect(emulator.count('POST', '/sobjects/Lead')).toBe(2);
  });

  it('sets aside a create that kept failing, goes on with the rest, and the next run writes it', async () => {
    const { emulator } = env;
    emulator.inject({
      kind: 'closed-connection',
      method: 'POST',
      path: '/sobjects/Lead',
      times: 3,
    });
    const steps = plan([leadCreate('aside@lost.io'), leadCreate('after@lost.io')]);
    const first = await applyPlan(connectTo(emulator), steps);
    expect(first.outcomes.map((o) => o.status)).toEqual(['failed', 'written']);
    expect(first.outcomes[0]).toMatchObject({ errors: [{ statusCode: 'NETWORK' }] });
    expect(first.stopped).toBeUndefined();

    const next = await applyPlan(connectTo(emulator), steps);
    expect(next.outcomes.map((o) => o.status)).toEqual(['written', 'already-done']);
    expect(leads(emulator, 'aside@lost.io')).toBe(1);
    expect(leads(emulator, 'after@lost.io')).toBe(1);
  });
});
