// A mapping to a Text field an admin made shorter than the values: each value is cut to fit when
// written, and the next run, which plans the whole value again (the record holds the cut one),
// sends nothing. Before, the same update went out on every run. Through the public API, as an
// integrator scripts two runs: read the org, plan, apply.
import { customFieldDescribe, seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import {
  defineFieldMappings,
  type ObservedCompany,
  planSync,
  updateFields,
} from '../../src/index.js';
import { applyPlan, readCrm, setUpFields } from '../../src/salesforce.js';
import { company } from '../fixtures.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator();
const NAME = 'Acme Corporation International'; // 30 characters, for a field of 10

describe('a mapped field shorter than its values', () => {
  it('is written cut once, and the next run sends nothing', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    expect((await setUpFields(connection)).ok).toBe(true);
    emulator.org.fields.get('Account')?.set('Short_Name__c', {
      ...customFieldDescribe('Short_Name__c', 'Short name', 'string'),
      length: 10,
    });
    const profile = String(emulator.org.table('User').get(emulator.org.userId)?.ProfileId);
    emulator.org.setFieldPermission(profile, 'Account.Short_Name__c', true, true);
    const [account = ''] = seedOrg(emulator.org, { companies: 1 }).accounts;
    const website = String(emulator.org.table('Account').get(account)?.Website);
    const domain = new URL(website.includes('//') ? website : `https://${website}`).hostname;
    const observed: ObservedCompany[] = [
      { company: company(domain.replace(/^www\./, ''), { name: NAME }), contacts: [] },
    ];
    const mappings = defineFieldMappings([
      { object: 'Account', apiName: 'Short_Name__c', source: 'companyName', trigger: 'ANY' },
    ]);

    const run = async () => {
      const crm = await readCrm(connection, { fields: updateFields(mappings) });
      const plan = planSync({ crm, observed, settings: { mappings } });
      return { plan, result: await applyPlan(connection, plan, { bulk: false, crm }) };
    };
    const first = await run();
    expect(first.result.counts).toMatchObject({ written: 1, failed: 0 });
    expect(emulator.org.table('Account').get(account)?.Short_Name__c).toBe(NAME.slice(0, 10));
    const writes = emulator.requests.filter((r) => r.method === 'PATCH').length;

    const second = await run();
    // The planner compares the record with the whole name: it plans the update again …
    expect(second.plan.steps.find((s) => s.type === 'update')).toMatchObject({
      fields: { Short_Name__c: NAME },
    });
    // … and applying it finds the record holding the name as the org stores it.
    expect(second.result.counts).toMatchObject({ written: 0, skipped: 1, failed: 0 });
    expect(emulator.requests.filter((r) => r.method === 'PATCH')).toHaveLength(writes);
  });
});
