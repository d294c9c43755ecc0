import { fileURLToPath } from 'node:url';
import { connect, setUpFields } from '@service/crm-sync/salesforce';
import { runScript, salesforceEnv } from '@service/example-smoke-kit';
// The Salesforce emulator the test suites share (faithful to Salesforce's
// documented shapes), on loopback.
import { type Emulator, startEmulator } from '@service/salesforce-emulator';
import { afterEach, describe, expect, it } from 'vitest';

const cwd = fileURLToPath(new URL('..', import.meta.url));

/** Runs the script as a user does, with credentials only from `env`. */
const runPipeline = (env: Record<string, string>, ...args: string[]) =>
  runScript({ cwd, args: ['src/main.ts', ...args], env, withoutEnvPrefixes: ['SF_'] });

/** The step rows of the printed plan table (after its header), as [step, record] pairs. */
const planRows = (stdout: string) => {
  const lines = stdout.split('\n');
  const header = lines.findIndex((line) => line.startsWith('Step '));
  const end = lines.findIndex((line) => /^\d+ updates, /.test(line));
  return lines
    .slice(header + 1, end)
    .map((line) => line.split(/ {2,}/).slice(0, 2) as [string, string]);
};

describe('examples/sync-pipeline without credentials (dry run on the sample CRM snapshot)', () => {
  it('ingests the sample events and prints the plan as a table, writing nothing', async () => {
    const { code, stdout, stderr } = await runPipeline({});
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\d+ events ingested \(0 rejected\); workspace default: 3 companies/);
    expect(planRows(stdout)).toEqual([
      ['update Account', '001000000000001AAA'],
      ['update Contact', '003000000000001AAA'],
      ['update Lead', '00Q000000000001AAA'],
      ['create Lead', 'Lead:hank.scorpio@globex.com'],
      ['post on Contact', '003000000000001AAA'],
      ['post on Lead', 'Lead:hank.scorpio@globex.com'],
      ['skip (not-enabled)', 'frank@globex.com'],
      ['skip (not-enabled)', 'globex.com'],
      ['skip (not-enabled)', 'initech.io'],
    ]);
    expect(stdout).toContain('3 updates, 1 creates, 2 feed posts, 3 skipped (0 ambiguous)');
    expect(stdout).toContain('Dry run: set SF_INSTANCE_URL and SF_ACCESS_TOKEN');
  });

  it('plans for another workspace of the same events file', async () => {
    const { code, stdout } = await runPipeline({}, '--workspace', 'northwind');
    expect(code).toBe(0);
    expect(stdout).toContain('workspace northwind: 2 companies, 2 contacts');
    expect(planRows(stdout).map(([step]) => step)).toContain('update Contact');
  });
});

describe('examples/sync-pipeline against the Salesforce emulator', () => {
  let emulator: Emulator;
  afterEach(() => emulator?.close());

  it('reads the org, applies the plan, and a second run creates nothing twice', async () => {
    emulator = await startEmulator();
    const { org } = emulator;
    const account = org.insert('Account', { Name: 'Acme Corp', Website: 'https://www.acme.com' });
    const contact = org.insert('Contact', {
      LastName: 'Lee',
      Email: 'Ann.Lee@acme.com',
      AccountId: account,
    });
    org.insert('Lead', { LastName: 'Patel', Company: 'Acme Corp', Email: 'raj.patel@acme.com' });
    const tokens = emulator.issueTokens();
    // Field setup is its own step (see examples/crm-field-setup), done once before any sync.
    await setUpFields(connect({ ...tokens }));
    const env = salesforceEnv(emulator);

    const writes = () => emulator.requests.filter((r) => r.method !== 'GET').length;
    const writesBefore = writes();
    const dry = await runPipeline(env, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`CRM (${env.SF_INSTANCE_URL}): 1 Accounts, 1 Contacts, 1 Leads`);
    expect(dry.stdout).toContain('Dry run: nothing was written.');
    expect(writes()).toBe(writesBefore);

    const first = await runPipeline(env);
    expect(first.code, first.stdout + first.stderr).toBe(0);
    expect(first.stdout).toContain('3 updates, 1 creates, 2 feed posts');
    expect(first.stdout).toMatch(/Applied: 6 written, 0 already-done, 3 skipped, 0 failed/);
    expect(org.table('Account').get(account)?.ServiceSessions__c).toBeGreaterThan(0);
    expect(org.table('Contact').get(contact)?.ServiceLastSeen__c).toEqual(expect.any(String));
    const leads = () =>
      [...org.table('Lead').values()].filter((lead) => lead.Email === 'hank.scorpio@globex.com');
    expect(leads()).toHaveLength(1);
    expect(org.feed).toHaveLength(2);

    const second = await runPipeline(env);
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(second.stdout).toContain('2 Leads');
    expect(leads()).toHaveLength(1);
  });
});
