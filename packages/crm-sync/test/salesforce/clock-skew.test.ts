// An incremental read against an org whose clock is behind this machine's: the watermark is the
// org's time, so a clock here 10 minutes ahead (more than the 5-minute overlap) misses nothing.

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { readCrmChanges } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator({ clockOffsetSeconds: -600 });

describe('readCrmChanges with this machine 10 minutes ahead of the org', () => {
  it('reads every change made after the previous read', async () => {
    const { emulator } = env;
    const { org } = emulator;
    org.advance(-3600); // records made an hour ago on the org's clock
    const { contacts } = seedOrg(org, { companies: 20, leads: 3 });
    org.advance(3600);
    const connection = connectTo(emulator);
    const first = await readCrmChanges(connection);
    expect(first.reads.Contact).toMatchObject({ mode: 'full', records: 20 });

    org.advance(60); // a minute later on the org's clock, a Contact changes
    const jane = org.table('Contact').get(contacts[3] ?? '');
    if (jane) org.change('Contact', jane, { Email: 'jane@company3.com' });
    const next = await readCrmChanges(connection, { previous: first.snapshot });
    expect(next.reads.Contact).toMatchObject({ mode: 'changes', records: 1 });
    expect(next.snapshot.contacts.find((c) => c.Id === contacts[3])?.Email).toBe(
      'jane@company3.com',
    );
  });
});
