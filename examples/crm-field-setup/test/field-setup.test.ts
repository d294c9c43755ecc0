import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { runScript, salesforceEnv } from '@service/example-smoke-kit';
// The Salesforce emulator the test suites share (faithful to Salesforce's
// documented shapes, Metadata envelopes validated against the XSD when it is on this machine).
import {
  type Emulator,
  SF_CLI_LOGIN,
  STANDARD_USER,
  startEmulator,
} from '@service/salesforce-emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';

const cwd = fileURLToPath(new URL('..', import.meta.url));
let out: string;

/** Runs the script as a user does, with credentials only from `env`. */
const runSetup = (env: Record<string, string>, ...args: string[]) =>
  runScript({
    cwd,
    args: ['src/main.ts', '--out', out, ...args],
    env,
    withoutEnvPrefixes: ['SF_'],
  });

const metadataCalls = (emulator: Emulator) =>
  emulator.requests.filter((r) => r.soap !== undefined).map((r) => r.soap?.operation);

beforeAll(async () => {
  out = await mkdtemp(path.join(tmpdir(), 'field-setup-'));
});
afterAll(() => rm(out, { recursive: true, force: true }));

describe('examples/crm-field-setup without credentials (dry run)', () => {
  it('prints the 61 fields and the plan, and writes the envelopes and a source-format export', async () => {
    const { code, stdout } = await runSetup({});
    expect(code).toBe(0);
    expect(stdout).toContain("The service's 61 custom fields:");
    expect(stdout).toMatch(
      /Account\.ServiceSessions__c\s+Number\(18,0\)\s+Service - Total Sessions/,
    );
    expect(stdout).toContain('7 upsertMetadata calls');
    expect(stdout).toContain('set SF_INSTANCE_URL and SF_ACCESS_TOKEN, or pass --target-org ALIAS');

    const envelopes = (await readdir(path.join(out, 'envelopes'))).sort();
    expect(envelopes).toHaveLength(8);
    expect(envelopes.at(-1)).toBe('08-updateMetadata.xml');
    const first = await readFile(path.join(out, 'envelopes', envelopes[0] ?? ''), 'utf8');
    expect(first).toContain('REPLACE_WITH_ACCESS_TOKEN');

    const files = await readdir(path.join(out, 'source'), { recursive: true });
    expect(files.filter((f) => f.endsWith('.field-meta.xml'))).toHaveLength(61);
    const manifest = await readFile(path.join(out, 'source/manifest/package.xml'), 'utf8');
    expect(manifest.match(/<members>[A-Za-z]+\.[A-Za-z]+__c<\/members>/g)).toHaveLength(61);
  });
});

describe('examples/crm-field-setup with an org that cannot be reached', () => {
  it('says so in one line and exits 1, without a stack trace', async () => {
    const emulator = await startEmulator();
    const env = salesforceEnv(emulator);
    await emulator.close(); // its port is closed now: nothing answers there
    const { code, stderr } = await runSetup(env);
    expect(code).toBe(1);
    expect(stderr.trim()).toMatch(/^Salesforce: GET \S+ could not reach the org/);
    expect(stderr).not.toMatch(/\n\s+at /);
  });
});

describe('examples/crm-field-setup against the Salesforce emulator', () => {
  let emulator: Emulator;
  afterEach(() => emulator?.close());

  it('plans with --dry-run without a Metadata call, applies, then finds nothing to change', async () => {
    emulator = await startEmulator();
    const env = salesforceEnv(emulator);

    const dry = await runSetup(env, '--dry-run');
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`Org ${env.SF_INSTANCE_URL}, profile Admin:`);
    expect(dry.stdout).toContain('missing  Account.ServiceSessions__c');
    expect(dry.stdout).toContain('grant    read+edit on 61 fields');
    expect(dry.stdout).toContain('Dry run: nothing was changed.');
    expect(metadataCalls(emulator)).toEqual([]);

    const applied = await runSetup(env);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain('7 upsertMetadata and 1 updateMetadata calls');
    expect(applied.stdout).toContain('61 of 61 fields and 61 grants processed, 0 failed');
    expect(metadataCalls(emulator)).toEqual([...Array(7).fill('upsertMetadata'), 'updateMetadata']);
    expect(emulator.schemaErrors).toEqual([]);

    const again = await runSetup(env);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('nothing to change');
    expect(metadataCalls(emulator)).toHaveLength(8);
  });

  it('explains the remedy and exits 6 when the user lacks the permissions', async () => {
    emulator = await startEmulator({ profile: STANDARD_USER });
    const { code, stderr } = await runSetup(salesforceEnv(emulator));
    expect(code).toBe(6);
    expect(stderr).toContain('The connected user cannot set up fields: missing Modify All Data');
    expect(stderr).toContain('Reconnect with a System Administrator');
    expect(metadataCalls(emulator)).toEqual([]);
  });
});

describe('examples/crm-field-setup with --target-org (an sf CLI login)', () => {
  let emulator: Emulator;
  afterEach(() => emulator?.close());

  it('sets up the fields through the Connection of the sf CLI login, then finds nothing to change', async () => {
    emulator = await startEmulator();
    const home = await mkdtemp(path.join(tmpdir(), 'sf-home-'));
    // @salesforce/core keeps its key in a file under HOME: a test machine has no desktop keyring.
    const sfHome = {
      HOME: home,
      SF_USE_GENERIC_UNIX_KEYCHAIN: 'true',
      SF_DISABLE_TELEMETRY: 'true',
    };
    await promisify(execFile)(process.execPath, [SF_CLI_LOGIN], {
      env: {
        ...process.env,
        ...sfHome,
        SF_TEST_LOGIN_URL: emulator.url,
        SF_TEST_CLIENT_ID: emulator.clientId,
        SF_TEST_CLIENT_SECRET: emulator.clientSecret,
        SF_TEST_REFRESH_TOKEN: emulator.issueTokens().refreshToken,
        SF_TEST_ALIAS: 'acme',
      },
    });

    const applied = await runSetup(sfHome, '--target-org', 'acme');
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toContain(`Org ${emulator.url}, profile Admin:`);
    expect(applied.stdout).toContain('61 of 61 fields and 61 grants processed, 0 failed');
    expect(metadataCalls(emulator)).toEqual([...Array(7).fill('upsertMetadata'), 'updateMetadata']);

    const again = await runSetup(sfHome, '--target-org', 'acme');
    expect(again.stdout).toContain('nothing to change');

    const unknown = await runSetup(sfHome, '--target-org', 'nope');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No usable sf CLI login nope');
    expect(unknown.stderr).toContain('sf org login web --alias nope');
  });
});
