// An org whose sharing hides records from the integration user (Private organization-wide
// defaults), with record types, a create-time validation rule and person accounts: the sync
// creates nothing it could not check for a duplicate, gives new records the record type and
// constants the org asks for, and never takes a person for a company.

import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  addPersonAccount,
  grantViewAll,
  STANDARD_USER,
  VALIDATION_MESSAGE,
} from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import type { PlanStep } from '../../src/index.js';
import { checkCreateDefaults } from '../../src/salesforce/write/create-defaults.js';
import { applyPlan, readCrm } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { runMain } from './in-process.js';
import { leadCreate, plan } from './plan-steps.js';

/** A Lead owned by another user: hidden by Private sharing unless the user sees all Leads. */
function leadOfAnotherUser(env: ReturnType<typeof useEmulator>, email: string): string {
  const { org } = env.emulator;
  const owner = org.insert('User', { FirstName: 'Other', LastName: 'Rep' });
  return org.insert('Lead', { LastName: 'Hidden', Company: 'Acme', Email: email, OwnerId: owner });
}

const leadsWith = (env: ReturnType<typeof useEmulator>, email: string) =>
  [...env.emulator.org.table('Lead').values()].filter((l) => l.Email === email);

describe('a user who cannot see every Lead', () => {
  const env = useEmulator({ limitedSharing: true, profile: STANDARD_USER });

  it('creates no Lead (with the remedy) and still applies the updates', async () => {
    const hidden = leadOfAnotherUser(env, 'hidden@acme.io');
    const own = env.emulator.org.insert('Lead', { LastName: 'Own', Company: 'Acme' });
    const update: PlanStep = {
      type: 'update',
      object: 'Lead',
      id: own,
      fields: { Title: 'Buyer' },
      subject: { kind: 'contact', email: 'own@acme.io', domain: 'acme.io' },
      reason: 'update existing',
    };
    const result = await applyPlan(
      connectTo(env.emulator),
      plan([update, leadCreate('hidden@acme.io')]),
      { bulk: false },
    );
    expect(leadsWith(env, 'hidden@acme.io').map((l) => l.Id)).toEqual([hidden]);
    expect(env.emulator.org.table('Lead').get(own)?.Title).toBe('Buyer');
    const [updated, created] = result.outcomes;
    expect(updated?.status).toBe('written');
    expect(created?.status).toBe('failed');
    if (created?.status !== 'failed') return;
    expect(created.errors[0]?.statusCode).toBe('CANNOT_SEE_ALL_RECORDS');
    expect(created.errors[0]?.message).toContain('give it View All on Lead (or View All Data)');
  });

  it('creates no Lead when it may not read its own permissions, and says so', async () => {
    const { org } = env.emulator;
    org.unreadableObjects.add('ObjectPermissions');
    try {
      const result = await applyPlan(connectTo(env.emulator), plan([leadCreate('new@acme.io')]), {
        bulk: false,
      });
      expect(leadsWith(env, 'new@acme.io')).toEqual([]);
      expect(result.outcomes[0]).toMatchObject({ status: 'failed' });
      if (result.outcomes[0]?.status === 'failed')
        expect(result.outcomes[0].errors[0]?.message).toContain('View Setup and Configuration');
    } finally {
      org.unreadableObjects.delete('ObjectPermissions');
    }
  });

  it("finds the hidden Lead once it has the object's View All, and creates nothing", async () => {
    const hidden = leadOfAnotherUser(env, 'seen@acme.io');
    grantViewAll(env.emulator.org, 'Lead');
    const result = await applyPlan(connectTo(env.emulator), plan([leadCreate('seen@acme.io')]), {
      bulk: false,
    });
    expect(result.outcomes[0]).toMatchObject({ status: 'already-done', id: hidden });
    expect(leadsWith(env, 'seen@acme.io')).toHaveLength(1);
  });
});

describe('createDefaults in an org with record types and a Lead validation rule', () => {
  const env = useEmulator({ recordTypes: true, validationRule: true });
  const partner = (object: string) =>
    [...env.emulator.org.table('RecordType').values()].find(
      (t) => t.SobjectType === object && t.IsDefault !== true,
    )?.Id as string;

  it('give the record type and the constants, which satisfy the rule', async () => {
    const connection = connectTo(env.emulator);
    const refused = await applyPlan(connection, plan([leadCreate('ada@acme.io')]), {
      bulk: false,
    });
    expect(refused.outcomes[0]).toMatchObject({
      status: 'failed',
      errors: [{ statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION' }],
    });
    if (refused.outcomes[0]?.status === 'failed')
      expect(refused.outcomes[0].errors[0]?.message).toContain(VALIDATION_MESSAGE);
    const result = await applyPlan(connection, plan([leadCreate('bob@acme.io')]), {
      bulk: false,
      createDefaults: { Lead: { recordTypeId: partner('Lead'), fields: { Industry: 'Other' } } },
    });
    const [lead] = leadsWith(env, 'bob@acme.io');
    expect(result.outcomes[0]?.status).toBe('written');
    expect(lead).toMatchObject({ RecordTypeId: partner('Lead'), Industry: 'Other' });
  });

  it('are refused before anything is written when a field or record type is not the object’s', async () => {
    const before = env.emulator.org.table('Lead').size;
    await expect(
      applyPlan(connectTo(env.emulator), plan([leadCreate('cy@acme.io')]), {
        bulk: false,
        createDefaults: {
          Lead: { recordTypeId: partner('Account'), fields: { Industry: 'Other', Nope: 'x' } },
        },
      }),
    ).rejects.toThrow(/Lead\.Nope is not a field.*is not a record type of Lead/);
    expect(env.emulator.org.table('Lead').size).toBe(before);
  });

  it('checked first, as `service-crm sync` does, are not described again by the apply', async () => {
    const connection = connectTo(env.emulator);
    const defaults = { Lead: { recordTypeId: partner('Lead'), fields: { Industry: 'Other' } } };
    const describes = (from: number) =>
      env.emulator.requests.slice(from).filter((r) => r.path.endsWith('/sobjects/Lead/describe'));
    const from = env.emulator.requests.length;
    await checkCreateDefaults(connection, defaults);
    expect(describes(from)).toHaveLength(1);
    const applied = env.emulator.requests.length;
    const result = await applyPlan(connection, plan([leadCreate('dee@acme.io')]), {
      bulk: false,
      createDefaults: defaults,
    });
    expect(result.outcomes[0]?.status).toBe('written');
    // The one describe left is the fitting of the values, which reads the fields' lengths.
    expect(describes(applied)).toHaveLength(1);
  });
});

describe('createDefaults the org cannot take, in `service-crm sync --config`', () => {
  const env = useEmulator({ recordTypes: true });

  it('stop the sync before it reads anything: exit 2, one line naming the problem', async () => {
    const home = await mkdtemp(join(tmpdir(), 'service-crm-defaults-'));
    const config = join(home, 'config.json');
    const accountType = [...env.emulator.org.table('RecordType').values()].find(
      (t) => t.SobjectType === 'Account',
    )?.Id;
    await writeFile(
      config,
      JSON.stringify({ createDefaults: { Lead: { recordTypeId: accountType } } }),
    );
    const tokens = env.emulator.issueTokens();
    const from = env.emulator.requests.length;
    const run = await runMain(['sync', '--events', join(home, 'none.ndjson'), '--config', config], {
      SF_INSTANCE_URL: tokens.instanceUrl,
      SF_ACCESS_TOKEN: tokens.accessToken,
      SERVICE_CRM_HOME: home,
    });
    expect(run.code).toBe(2);
    expect(run.err).toHaveLength(1);
    expect(run.err[0]).toContain(`createDefaults: ${accountType} is not a record type of Lead`);
    expect(env.emulator.requests.slice(from).map((r) => r.path)).toEqual([
      '/services/data/v59.0/sobjects/Lead/describe',
    ]);
  });
});

describe('an org with person accounts', () => {
  const env = useEmulator({ personAccounts: true });

  it('never reads or matches a person account as the company of its domain', async () => {
    const { org } = env.emulator;
    const person = addPersonAccount(org, { Name: 'Ada Lovelace', Website: 'https://acme.io' });
    const company = org.insert('Account', { Name: 'Globex', Website: 'https://globex.io' });
    const connection = connectTo(env.emulator);
    const crm = await readCrm(connection);
    expect(crm.accounts.map((a) => a.Id)).toEqual([company]);
    const create: PlanStep = {
      type: 'create',
      object: 'Account',
      fields: { Name: 'Acme', Website: 'https://acme.io' },
      idempotencyKey: 'Account:acme.io',
      duplicateCheck: { object: 'Account', field: 'Website', value: 'acme.io' },
      links: {},
      motion: 'New ICP visitor',
      subject: { kind: 'company', domain: 'acme.io' },
      reason: 'create account',
    };
    const single = await applyPlan(connection, plan([create]), { bulk: false });
    expect(single.outcomes[0]?.status).toBe('written');
    expect(single.outcomes[0]).not.toMatchObject({ id: person });
    // The Bulk API path's duplicate check leaves the person out too.
    addPersonAccount(org, { Name: 'Bo Person', Website: 'https://initech.io' });
    const bulk = await applyPlan(
      connection,
      plan([
        {
          ...create,
          fields: { Name: 'Initech', Website: 'https://initech.io' },
          idempotencyKey: 'Account:initech.io',
          duplicateCheck: { object: 'Account', field: 'Website', value: 'initech.io' },
        } as PlanStep,
      ]),
      { bulk: { writeThreshold: 1 } },
    );
    expect(bulk.outcomes[0]?.status).toBe('written');
  });
});
