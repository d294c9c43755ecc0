// `service-crm sync` (in process) against an org whose standard duplicate rules are on: a Lead
// the rules match to a Contact (same name, same company) is reported in the summary under
// DUPLICATES_DETECTED with its remedy, the run exits 0, and the next run sends no create; with
// `duplicateRules: "allowSave"` in the settings file the Lead is created.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import { setUpFields } from '../../src/salesforce.js';
import { e2eConfig } from './e2e-config.js';
import { connectTo, useEmulator } from './helpers.js';
import { runMain } from './in-process.js';

const env = useEmulator({ validateSchema: false, duplicateRules: true });
let home = '';
let events = '';
let contact = '';

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'service-crm-dupes-'));
  const { org } = env.emulator;
  // The person of the newcomer's events, known as a Contact under a personal address.
  const account = org.insert('Account', { Name: 'Newco Inc.' });
  contact = org.insert('Contact', {
    AccountId: account,
    FirstName: 'Person',
    LastName: 'newcomer0',
    Email: 'newcomer0@gmail.com',
  });
  expect((await setUpFields(connectTo(env.emulator))).ok).toBe(true);
  events = join(home, 'events.ndjson');
  await writeFile(events, toNdjson(sessionEvents({ companies: 0, newcomers: 1 })));
});

async function sync(settings: object, json = false) {
  const config = join(home, `config-${Math.random()}.json`);
  await writeFile(config, JSON.stringify({ ...e2eConfig, ...settings }));
  const tokens = env.emulator.issueTokens();
  const from = env.emulator.requests.length;
  const args = ['sync', '--events', events, '--config', config, ...(json ? ['--json'] : [])];
  const run = await runMain(args, {
    SERVICE_CRM_HOME: home,
    SF_INSTANCE_URL: tokens.instanceUrl,
    SF_ACCESS_TOKEN: tokens.accessToken,
  });
  const leadCreates = env.emulator.requests
    .slice(from)
    .filter((r) => r.method === 'POST' && r.path.endsWith('/sobjects/Lead'));
  return { ...run, leadCreates };
}

describe('service-crm sync with the org duplicate rules', () => {
  it('reports a refused duplicate with its remedy, exits 0, does not resend it, and saves it with allowSave', async () => {
    const first = await sync({}, true);
    expect(first.code).toBe(0);
    expect(first.leadCreates).toHaveLength(1);
    const report = JSON.parse(first.out.at(-1) ?? '{}');
    expect(report.outcomes).toContainEqual(
      expect.objectContaining({
        status: 'skipped',
        refusal: expect.objectContaining({
          statusCode: 'DUPLICATES_DETECTED',
          matchedIds: [contact],
        }),
      }),
    );

    const second = await sync({});
    expect(second.code).toBe(0);
    expect(second.leadCreates).toEqual([]);
    expect(second.out).toContain('Refused by the org (details per record: --json):');
    expect(second.out).toContainEqual(
      expect.stringMatching(
        /^ {2}DUPLICATES_DETECTED: 1 \(0 this run; 1 not sent again: refused before, data unchanged\): the org's duplicate rules matched existing records; merge them, or set duplicateRules: "allowSave"/,
      ),
    );

    const saved = await sync({ duplicateRules: 'allowSave' });
    expect(saved.code).toBe(0);
    expect(saved.leadCreates.map((r) => r.headers['sforce-duplicate-rule-header'])).toEqual([
      'allowSave=true',
    ]);
    expect(env.emulator.org.table('Lead').size).toBe(1);
  });
});
