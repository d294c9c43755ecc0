// The snapshot format as documented (docs/crm-sync/snapshot.md): the JSON Schema shipped in the
// package accepts what `service-crm snapshot` writes, the example's sample-crm.json and a snapshot
// written by hand; `sync --dry-run --snapshot` plans from a hand-written one, and refuses a file
// that is not one with a message that says where the format is described.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedOrg } from '@service/salesforce-emulator';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { runMain } from './in-process.js';

const env = useEmulator();
const read = async (path: string) =>
  JSON.parse(await readFile(new URL(path, import.meta.url), 'utf8'));
const SAMPLE_EVENTS = new URL('../../../../samples/events.ndjson', import.meta.url).pathname;
let validate: ReturnType<Ajv2020['compile']>;
let home = '';

const HAND_WRITTEN = {
  format: 'service-crm-snapshot',
  version: 1,
  accounts: [{ Id: '001000000000001AAA', Name: 'Acme', Website: 'https://www.acme.com' }],
  contacts: [],
  leads: [{ Id: '00Q000000000001AAA', Email: 'raj.patel@acme.com' }],
};

beforeAll(async () => {
  const schema = await read('../../crm-snapshot.schema.json');
  validate = new Ajv2020({ strict: true, strictTypes: false, allErrors: true }).compile(schema);
  home = await mkdtemp(join(tmpdir(), 'crm-snapshot-format-'));
});

describe('the CRM snapshot format', () => {
  it("accepts service-crm's own snapshot, the example's sample and a hand-written one", async () => {
    seedOrg(env.emulator.org, { companies: 3, leads: 2, opportunities: 2 });
    await setUpFields(connectTo(env.emulator));
    const tokens = env.emulator.issueTokens();
    const out = join(home, 'kept.json');
    const written = await runMain(['snapshot', '--out', out], {
      SERVICE_CRM_HOME: home,
      SF_INSTANCE_URL: tokens.instanceUrl,
      SF_ACCESS_TOKEN: tokens.accessToken,
    });
    expect(written.code, written.err.join('\n')).toBe(0);
    const kept = JSON.parse(await readFile(out, 'utf8'));
    expect(kept.accounts).toHaveLength(3);
    for (const snapshot of [
      kept,
      await read('../../../../examples/sync-pipeline/sample-crm.json'),
      HAND_WRITTEN,
    ]) {
      expect(validate(snapshot), JSON.stringify(validate.errors)).toBe(true);
    }
    expect(validate({ ...HAND_WRITTEN, format: undefined })).toBe(false);
    expect(validate({ ...HAND_WRITTEN, accounts: [{ Name: 'no Id' }] })).toBe(false);
  });

  it('plans offline from a hand-written snapshot', async () => {
    const path = join(home, 'hand-written.json');
    await writeFile(path, JSON.stringify(HAND_WRITTEN));
    const from = env.emulator.requests.length;
    const run = await runMain(
      ['sync', '--dry-run', '--snapshot', path, '--events', SAMPLE_EVENTS],
      {
        SERVICE_CRM_HOME: join(home, 'nowhere'),
      },
    );
    expect(run.code, run.err.join('\n')).toBe(0);
    expect(env.emulator.requests.length).toBe(from);
    const printed = run.out.join('\n');
    expect(printed).toMatch(
      /^would: update Account 001000000000001AAA \(\d+ fields\) \(Account 001000000000001AAA has the website domain acme\.com\)$/m,
    );
    expect(printed).toMatch(
      /^would: update Lead 00Q000000000001AAA \(\d+ fields\) \(Lead 00Q000000000001AAA has the email raj\.patel@acme\.com\)$/m,
    );
  });

  it('refuses a file that is not a snapshot, saying where the format is described', async () => {
    const path = join(home, 'leads-not-a-list.json');
    await writeFile(path, JSON.stringify({ ...HAND_WRITTEN, leads: {} }));
    const run = await runMain(
      ['sync', '--dry-run', '--snapshot', path, '--events', SAMPLE_EVENTS],
      {
        SERVICE_CRM_HOME: join(home, 'nowhere'),
      },
    );
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain(
      `${path} is not a CRM snapshot ("leads" is not a list). See docs/crm-sync/snapshot.md`,
    );
  });
});
