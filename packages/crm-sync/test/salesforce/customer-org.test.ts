// Issue 37's "Done when", at a size CI runs: the built `service-crm` against an org of the
// `customer` preset seeded as a customer's org (the scenario the `customer-org` benchmark runs at
// 5,000 companies), `fields apply`, then the same sync twice.
import { join } from 'node:path';
import {
  type CustomerOrgRun,
  type OrgBehaviours,
  presetOptions,
  runCustomerOrg,
} from '@service/salesforce-emulator';
import { runCli } from '@service/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';

const COMPANIES = 150;
let run: CustomerOrgRun;

beforeAll(async () => {
  const cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-customer-org'));
  run = await runCustomerOrg({
    companies: COMPANIES,
    run: (args, home) => runCli(cli, args, { cwd: home, env: { SERVICE_CRM_HOME: home } }),
  });
}, 300_000);

describe('a sync of a customer-like org, run twice', () => {
  it('sets up its fields, and each sync ends with a report, not a stack trace', () => {
    expect(run.fieldsApply.code).toBe(0);
    expect(run.syncs[0].counts.written).toBeGreaterThan(COMPANIES);
    for (const sync of run.syncs) {
      // 4: some steps failed (the records the org's own trigger refuses).
      expect([0, 4], sync.output).toContain(sync.code);
      expect(sync.output).not.toMatch(/\n\s+at /);
    }
  });

  it('writes every record the org accepts', () => {
    expect(run.accepted).toBeGreaterThan(COMPANIES);
    expect(run.acceptedNotWritten).toEqual([]);
  });

  it('loses no record to an address or a length, in either sync', () => {
    for (const sync of run.syncs) expect(sync.lostToAddressOrLength).toEqual([]);
  });

  it('sends nothing in the second sync that failed the same way in the first', () => {
    expect(run.syncs[1].resentSameFailure).toEqual([]);
  });
});

/** The behaviours of a customer's org issue 37 names, each on in the `customer` preset. */
const ISSUE_37_BEHAVIOURS: (keyof OrgBehaviours)[] = [
  'duplicateRules',
  'stateCountryPicklists',
  'fieldLengths',
  'emailFormat',
  'throwingTrigger',
  'limitedSharing',
  'personAccounts',
  'recordTypes',
  'validationRule',
  'chatterHourlyLimit',
];

describe('with every behaviour of the customer preset on', () => {
  it('runs against an org with every behaviour of the customer preset on', () => {
    const preset = presetOptions('customer') as Partial<OrgBehaviours>;
    const off = ISSUE_37_BEHAVIOURS.filter((name) => !preset[name]);
    expect(off).toEqual([]);
  });

  it('creates no record the org calls a duplicate, and reports the refusals as such', () => {
    expect(run.createdDuplicates).toEqual([]);
    expect(run.syncs[0].refusedAsDuplicates).toBeGreaterThan(0);
    // A create refused as a duplicate is not a failure of the run.
    expect(run.syncs[0].failuresByStatus.DUPLICATES_DETECTED).toBeUndefined();
  });

  it("fails only the records the org's trigger refuses, not their chunk", () => {
    const failed = Object.values(run.syncs[0].failuresByStatus).reduce((a, b) => a + b, 0);
    expect(run.refusable).toBeGreaterThan(0);
    expect(failed).toBeLessThanOrEqual(run.refusable);
    expect(run.syncs[1].resentSameFailure).toEqual([]);
  });
});
