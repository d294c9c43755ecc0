// Salesforce answers REQUEST_LIMIT_EXCEEDED for two limits, told apart by the message: the daily
// total ("TotalRequests Limit exceeded.") and too many long-running requests at once
// ("ConcurrentRequests (Concurrent API Requests) Limit exceeded."). The second clears within
// minutes: it is retried, and when it persists the command says which limit it is and what to do.

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { applyPlan, SalesforceApiLimitError } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { runMain } from './in-process.js';
import { plan, update } from './plan-steps.js';

const env = useEmulator();

function stage() {
  const tokens = env.emulator.issueTokens();
  return runMain(['stage'], {
    SF_INSTANCE_URL: tokens.instanceUrl,
    SF_ACCESS_TOKEN: tokens.accessToken,
    SERVICE_CRM_HOME: '/nonexistent',
  });
}

describe('the concurrent request limit', () => {
  it('is waited out: the refused call is sent again and the work goes on', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    emulator.inject({ kind: 'concurrent-limit', path: '/limits', times: 2 });
    const usage = await connection.limits();
    expect(usage.max).toBeGreaterThan(0);
    expect(connection.stats.retries).toBe(2);
  });

  it('stops a sync that meets it on every retry, saying it is not the daily limit', async () => {
    const { emulator } = env;
    const [account = ''] = seedOrg(emulator.org, { companies: 1 }).accounts;
    emulator.inject({ kind: 'concurrent-limit', path: '/composite/sobjects', times: 5 });
    const result = await applyPlan(connectTo(emulator), plan([update(account, { Name: 'Busy' })]));
    expect(result.counts.pending).toBe(1);
    expect(result.stopped?.reason).toBe('api-limit');
    expect(result.stopped?.message).toMatch(/too many long-running requests at once/);
    expect(result.stopped?.message).not.toMatch(/24 hours/);
  });

  it('is named by the command, with what to do, in words an integrator understands', async () => {
    const { emulator } = env;
    emulator.inject({ kind: 'concurrent-limit', path: '/query', times: 5 });
    const run = await stage();
    expect(run.code).toBe(5);
    expect(run.err.join('\n')).toMatch(
      /too many long-running requests at once.*not the daily limit.*run the command again in a few minutes/is,
    );
  }, 60_000);
});

describe('the daily request limit', () => {
  it('stops at once and says the calls come back over 24 hours', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    emulator.inject({ kind: 'request-limit', path: '/limits' });
    const error = await connection.limits().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SalesforceApiLimitError);
    expect(error).toMatchObject({ limit: 'daily' });
    expect(connection.stats.retries).toBe(0);
    emulator.inject({ kind: 'request-limit', path: '/query' });
    const run = await stage();
    expect(run.code).toBe(5);
    expect(run.err.join('\n')).toMatch(/daily API request limit.*rolling 24 hours/s);
  });
});
