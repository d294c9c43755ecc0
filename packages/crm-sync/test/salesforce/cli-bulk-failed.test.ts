// `service-crm sync` when Salesforce fails a Bulk API job as a whole: the command says which
// job, quotes Salesforce's errorMessage, says what to do, and exits 4 with the records pending;
// run again, it writes them.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedOrg, sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import { setUpFields } from '../../src/salesforce.js';
import { buildCli, packageDir } from './build-cli.js';
import { finish, start } from './cli-process.js';
import { e2eConfig } from './e2e-config.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator({ validateSchema: false });
const COMPANIES = 30;
const outDir = join(packageDir, 'node_modules/.cache/service-crm-bulk-failed-test');
let cli = '';

beforeAll(async () => {
  cli = await buildCli(outDir);
}, 60_000);

describe('service-crm sync with a Bulk API job Salesforce fails whole', () => {
  it('prints the job, its errorMessage and what to do, exits 4, and writes the records on the next run', async () => {
    const { emulator } = env;
    seedOrg(emulator.org, { companies: COMPANIES });
    expect((await setUpFields(connectTo(emulator))).ok).toBe(true);
    const home = await mkdtemp(join(tmpdir(), 'service-crm-bulk-failed-'));
    const events = join(home, 'events.ndjson');
    await writeFile(events, toNdjson(sessionEvents({ companies: COMPANIES })));
    const config = join(home, 'config.json');
    await writeFile(config, JSON.stringify({ ...e2eConfig, bulk: { writeThreshold: 25 } }));
    const run = () =>
      finish(start(cli, home, emulator, ['sync', '--events', events, '--config', config]));
    emulator.bulk.failNextJob = {
      after: 0,
      message: 'InvalidBatch : Field name not found : ServiceSessions__c',
    };
    const failed = await run();
    expect(failed.code).toBe(4);
    expect(failed.stderr.trim()).toMatch(
      /^Salesforce failed Bulk API job \w+ \(update of 30 Account records\) as a whole and wrote none of its records: "InvalidBatch : Field name not found : ServiceSessions__c"\. A field it names is missing from the org or hidden from the connecting user: run `service-crm fields apply`, or give that user access to the field, then run the same sync again\. Its records are left pending, and none is written twice\.$/,
    );
    expect(failed.stdout).toMatch(/0 written, .* pending;/);

    const again = await run();
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/, 0 failed, 0 pending;/);
  });
});
