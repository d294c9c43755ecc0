// Pipeline Stage from one Account query with an Opportunity subquery (issue 16) equals the stage
// from separate reads of Accounts and Opportunities, on the same data.

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import {
  type CrmAccount,
  type CrmOpportunity,
  computePipelineStage,
  type PipelineStage,
} from '../../src/index.js';
import { readCrm, readRecords } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { runMain } from './in-process.js';

const env = useEmulator({ pageSize: 40 });

function stages(accounts: readonly CrmAccount[], opportunities: readonly CrmOpportunity[]) {
  return new Map(
    accounts.map((a) => [
      a.Id,
      computePipelineStage({
        accountType: a.Type ?? null,
        opportunities: opportunities
          .filter((o) => o.AccountId === a.Id)
          .map((o) => ({ isClosed: o.IsClosed, isWon: o.IsWon })),
      }).stage,
    ]),
  );
}

describe('Pipeline Stage from the Account subquery', () => {
  it('equals the stage from separate reads of Accounts and Opportunities', async () => {
    const { emulator } = env;
    const { org } = emulator;
    // 100 Accounts; one deal each on the first 40, open on even ones and won on odd ones...
    const { accounts } = seedOrg(org, { companies: 100, opportunities: 40 });
    // ...lost deals on the next ten, a customer by type, and a deleted win that must not count.
    for (let i = 40; i < 50; i++) {
      org.insert('Opportunity', { AccountId: accounts[i], IsClosed: true, IsWon: false });
    }
    const customer = org.table('Account').get(accounts[60] ?? '');
    if (customer) customer.Type = 'Customer - Direct';
    const deleted = org.insert('Opportunity', {
      AccountId: accounts[70],
      IsClosed: true,
      IsWon: true,
    });
    org.recycle('Opportunity', deleted);

    const connection = connectTo(emulator);
    const before = emulator.requests.length;
    const crm = await readCrm(connection);
    const viaSubquery = stages(crm.accounts, crm.opportunities);
    const subqueryCalls = emulator.requests.slice(before);
    expect(subqueryCalls.filter((r) => /FROM Opportunity\b/.test(r.query.get('q') ?? ''))).toEqual(
      [],
    );

    const separate = stages(
      (await readRecords<CrmAccount>(connection, 'Account')).records,
      (await readRecords<CrmOpportunity>(connection, 'Opportunity')).records,
    );
    expect(viaSubquery).toEqual(separate);
    const count = (stage: PipelineStage) => [...viaSubquery.values()].filter((s) => s === stage);
    expect(count('Customer')).toHaveLength(21); // 20 with a won deal, 1 by type
    expect(count('Opportunity')).toHaveLength(20);
    expect(count('Lost Opportunity')).toHaveLength(10);
    expect(count('Prospect')).toHaveLength(49); // the deleted win left Account 70 a prospect
    expect(viaSubquery.get(accounts[70] ?? '')).toBe('Prospect');

    // `service-crm stage` reads them the same way: the same stages, no read of Opportunities.
    const tokens = emulator.issueTokens();
    const from = emulator.requests.length;
    const command = await runMain(['stage', '--json'], {
      SF_INSTANCE_URL: tokens.instanceUrl,
      SF_ACCESS_TOKEN: tokens.accessToken,
      SERVICE_CRM_HOME: '/nonexistent',
    });
    expect(command.code).toBe(0);
    const rows = JSON.parse(command.out.join('')) as { id: string; stage: PipelineStage }[];
    expect(new Map(rows.map((r) => [r.id, r.stage]))).toEqual(viaSubquery);
    const queried = emulator.requests.slice(from).map((r) => r.query.get('q') ?? '');
    expect(queried.filter((q) => /FROM Opportunity\b/.test(q))).toEqual([]);
  });

  it("reads every Opportunity of an Account with more than a child page of them, before the next Accounts page invalidates the children's cursor", async () => {
    const { emulator } = env;
    const { org } = emulator;
    // An Account with 250 deals (200 nest in its row, 50 behind the child cursor), on a page of
    // Accounts that more pages follow; one deal, the last, is won.
    const big = org.insert('Account', { Name: '!Big', Website: 'https://big.io' });
    for (let i = 0; i < 250; i++)
      org.insert('Opportunity', { AccountId: big, IsClosed: i === 249, IsWon: i === 249 });
    seedOrg(org, { companies: 100 });

    const crm = await readCrm(connectTo(emulator));
    expect(crm.opportunities.filter((o) => o.AccountId === big)).toHaveLength(250);
    expect(stages(crm.accounts, crm.opportunities).get(big)).toBe('Customer');
    const pages = emulator.requests.filter((r) => /\/query\/01g/.test(r.path));
    expect(pages.every((r) => r.status === 200)).toBe(true);
  });
});
