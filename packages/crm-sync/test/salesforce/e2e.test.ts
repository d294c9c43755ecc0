// Done-when of issue 6, through the public API: connect, field setup twice, read everything with
// an unreadable field, plan and apply a sync of 1,000 records in 5 composite calls with a
// timeline, surviving an expired session and a 503 in the middle.
import { openEmbeddedStore } from '@service/lookup-core';
import { seedOrg, sessionEvents } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { type Motion, type ObservedCompany, planSync } from '../../src/index.js';
import {
  applyPlan,
  connect,
  createAuthorization,
  exchangeCode,
  readCrm,
  setUpFields,
} from '../../src/salesforce.js';
import { e2eConfig } from './e2e-config.js';
import { clientOf, FAST_RETRY, useEmulator } from './helpers.js';

const env = useEmulator({ pageSize: 300 });

describe('end to end through the public API', () => {
  it('connects, sets up fields twice, reads, plans and applies 1,000 records through faults', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 500, leads: 40, opportunities: 20 });
    emulator.org.hidden.add('Lead.Title');

    // Connect: the web server flow with PKCE, as a browser would follow it.
    const client = clientOf(emulator);
    const auth = createAuthorization({
      ...client,
      redirectUri: 'http://localhost:1717/OauthRedirect',
    });
    const redirect = await emulator.approve(auth.url);
    const tokens = await exchangeCode(client, auth, {
      code: redirect.searchParams.get('code') ?? '',
      state: redirect.searchParams.get('state'),
    });
    const connection = connect({ ...tokens, ...client, retry: FAST_RETRY });

    const first = await setUpFields(connection);
    expect(first.ok).toBe(true);
    expect(first.calls).toEqual({ upsertMetadata: 7, updateMetadata: 1, readMetadata: 0 });
    const second = await setUpFields(connection);
    expect(second.unchanged).toBe(true);
    expect(second.calls).toEqual({ upsertMetadata: 0, updateMetadata: 0, readMetadata: 0 });

    const store = await openEmbeddedStore();
    const observed: ObservedCompany[] = [];
    try {
      await store.ingest(sessionEvents({ companies: 500, busy: 3, newcomers: 2 }));
      for await (const company of store.readAggregates()) observed.push(company);
    } finally {
      await store.close();
    }
    expect(observed).toHaveLength(501);

    const crm = await readCrm(connection, { unreadable: e2eConfig.unreadable });
    expect(crm.accounts).toHaveLength(500);
    expect(crm.contacts).toHaveLength(500);
    expect(crm.leads).toHaveLength(40);
    expect(crm.opportunities).toHaveLength(20);
    expect(crm.dropped.Lead).toEqual([]); // configured as unreadable: never even asked for

    const plan = planSync({ crm, observed, motions: e2eConfig.motions as unknown as Motion[] });
    expect(plan.summary).toMatchObject({ updates: 1000, creates: 2, feedPosts: 3 });

    emulator.inject({ kind: 'expired-session', path: '/composite/sobjects', after: 1 });
    emulator.inject({ kind: 'unavailable', path: '/composite/sobjects', after: 3 });
    const composites = emulator.count('PATCH', '/composite/sobjects');
    const result = await applyPlan(connection, plan, { omitFields: e2eConfig.unreadable });
    expect(result.counts).toMatchObject({ written: 1005, failed: 0, pending: 0 });
    const calls = emulator.requests
      .filter((r) => r.path.endsWith('/composite/sobjects'))
      .slice(composites);
    expect(calls.filter((r) => r.status === 200)).toHaveLength(5);
    expect(calls.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 401, 503]);
    expect(connection.stats.refreshes).toBe(1);

    const account = emulator.org.table('Account').get(accounts[0] ?? '');
    expect(account).toMatchObject({ ServiceSessions__c: 3, ServicePurchaseIntent__c: 'Medium' });
    expect(emulator.org.feed).toHaveLength(3);
    const leads = [...emulator.org.table('Lead').values()].filter((l) =>
      String(l.Email).endsWith('@newco.io'),
    );
    expect(leads).toHaveLength(2);
    expect(leads[0]).not.toHaveProperty('Title');
  }, 120_000);
});
