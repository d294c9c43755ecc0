// An org's active Lead assignment rule runs on every REST create and update that does not say
// `Sforce-Auto-Assign: FALSE`. A sync's updates keep each record's owner; its creates run the
// rules only when `autoAssign` is on (the default).

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { applyPlan, updateRecord } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { leadCreate, plan } from './plan-steps.js';

const env = useEmulator();

/** The emulated org's active Lead assignment rule hands every Lead to a queue user. */
function orgWithLeadRule() {
  const { emulator } = env;
  return { emulator, queue: emulator.leadAssignmentOwner };
}

describe('Lead assignment rules', () => {
  it('leave the owner of a Lead a sync updates as it was', async () => {
    const { emulator } = orgWithLeadRule();
    const { leads } = seedOrg(emulator.org, { companies: 0, leads: 3 });
    const owners = leads.map((id) => emulator.org.table('Lead').get(id)?.OwnerId);
    const result = await applyPlan(
      connectTo(emulator),
      plan(
        leads.map((id) => ({
          type: 'update',
          object: 'Lead',
          id,
          fields: { Title: 'Buyer' },
          subject: { kind: 'contact', email: `${id}@x.io`, domain: 'x.io' },
          reason: 'update existing',
        })),
      ),
    );
    expect(result.counts.written).toBe(3);
    expect(leads.map((id) => emulator.org.table('Lead').get(id)?.OwnerId)).toEqual(owners);
    expect(leads.map((id) => emulator.org.table('Lead').get(id)?.Title)).toEqual(
      leads.map(() => 'Buyer'),
    );
  });

  it('leave the owner of a Lead updated on its own as it was', async () => {
    const { emulator } = orgWithLeadRule();
    const [lead = ''] = seedOrg(emulator.org, { companies: 0, leads: 1 }).leads;
    const owner = emulator.org.table('Lead').get(lead)?.OwnerId;
    await updateRecord(connectTo(emulator), 'Lead', lead, { Title: 'Buyer' });
    expect(emulator.org.table('Lead').get(lead)?.OwnerId).toBe(owner);
  });

  it('run on a Lead a sync creates when autoAssign is on, and not when it is off', async () => {
    const { emulator, queue } = orgWithLeadRule();
    const connection = connectTo(emulator);
    const assigned = await applyPlan(connection, plan([leadCreate('ada@doe.io')]), {
      bulk: false,
    });
    const kept = await applyPlan(connection, plan([leadCreate('bob@doe.io')]), {
      bulk: false,
      autoAssign: false,
    });
    const ownerOf = (outcome: (typeof assigned.outcomes)[number] | undefined) =>
      outcome?.status === 'written' ? emulator.org.table('Lead').get(outcome.id)?.OwnerId : null;
    expect(ownerOf(assigned.outcomes[0])).toBe(queue);
    expect(ownerOf(kept.outcomes[0])).toBe(emulator.org.userId);
  });

  it('run in the org on a REST update that does not say FALSE', async () => {
    const { emulator, queue } = orgWithLeadRule();
    const [lead = ''] = seedOrg(emulator.org, { companies: 0, leads: 1 }).leads;
    await connectTo(emulator).rest('PATCH', `/sobjects/Lead/${lead}`, { body: { Title: 'x' } });
    expect(emulator.org.table('Lead').get(lead)?.OwnerId).toBe(queue);
  });
});
