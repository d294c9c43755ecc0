// A sync during an outage of some writes reports the steps it set aside in one line, not a
// line per step, and ends with exit 4 (docs/crm-sync/errors.md); the next run writes them.
import { describe, expect, it } from 'vitest';
import { useEmulator } from '../salesforce/helpers.js';
import { runMain } from '../salesforce/in-process.js';
import { chaosOrg, heldBy } from './sync-org.js';

const env = useEmulator();
const NEWCOMERS = 8;
const ATTEMPTS_PER_CREATE = 3; // sent, looked for and sent again twice

describe('service-crm sync when the org keeps dropping its creates', () => {
  it('folds the steps set aside into one line, exits 4, and the next run writes them once', async () => {
    const { emulator } = env;
    const org = await chaosOrg(emulator, { companies: 5, busy: 0, newcomers: NEWCOMERS });
    const tokens = emulator.issueTokens();
    const vars = {
      SERVICE_CRM_HOME: org.home,
      SF_INSTANCE_URL: tokens.instanceUrl,
      SF_ACCESS_TOKEN: tokens.accessToken,
    };
    expect((await runMain(['fields', 'apply'], vars)).code).toBe(0);
    emulator.inject({
      kind: 'closed-connection',
      method: 'POST',
      path: '/sobjects/Lead',
      times: NEWCOMERS * ATTEMPTS_PER_CREATE,
    });
    const args = org.args.filter((a) => a !== '--json');
    const outage = await runMain(args, vars);
    expect(outage.code).toBe(4);
    expect(outage.out.filter((line) => line.startsWith('failed:'))).toEqual([]);
    const aside = outage.out.filter((line) => line.startsWith('set aside:'));
    expect(aside).toHaveLength(1);
    expect(aside[0]).toMatch(new RegExp(`^set aside: ${NEWCOMERS} steps whose connection`));
    expect(heldBy(emulator).newcomerLeads).toBe(0);

    const next = await runMain(args, vars);
    expect(next.code).toBe(0);
    expect(heldBy(emulator)).toMatchObject({ newcomerLeads: NEWCOMERS, mostLeadsPerEmail: 1 });
  });
});
