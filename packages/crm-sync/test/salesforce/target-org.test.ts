// `service-crm ... --target-org ALIAS` runs on an sf CLI login: the auth file is written by
// @salesforce/core itself into a temporary HOME and points at the emulator's instance URL. Its
// Connection refreshes an expired session through the sf CLI's stored refresh token. Without
// @salesforce/core installed, or with an unknown alias, the command says what to do.
import { cp, mkdir, mkdtemp, readdir, readFile, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { SF_CLI_LOGIN, seedOrg } from '@service/salesforce-emulator';
import { runCli } from '@service/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';
import { useEmulator } from './helpers.js';

const env = useEmulator({ pageSize: 300 });
const outDir = join(packageDir, 'node_modules/.cache/service-crm-target-org-test');
let cli = '';
let home = '';
let username = '';

// @salesforce/core keeps the key of its auth files in a file under HOME instead of the desktop's
// keyring, which a test machine does not have.
const sfEnv = () => ({
  HOME: home,
  SF_USE_GENERIC_UNIX_KEYCHAIN: 'true',
  SF_DISABLE_TELEMETRY: 'true',
});

const serviceCrm = (args: string[], command = cli) =>
  runCli(command, args, { env: sfEnv(), cwd: home });

beforeAll(async () => {
  const { emulator } = env;
  cli = await buildCli(outDir);
  home = await mkdtemp(join(tmpdir(), 'sf-home-'));
  const written = await runCli(SF_CLI_LOGIN, [], {
    env: {
      ...sfEnv(),
      SF_TEST_LOGIN_URL: emulator.url,
      SF_TEST_CLIENT_ID: emulator.clientId,
      SF_TEST_CLIENT_SECRET: emulator.clientSecret,
      SF_TEST_REFRESH_TOKEN: emulator.issueTokens().refreshToken,
      SF_TEST_ALIAS: 'acme',
    },
    cwd: home,
  });
  if (written.code !== 0) throw new Error(`sf login not written: ${written.stderr}`);
  username = written.stdout.trim();
}, 120_000);

describe('service-crm --target-org', () => {
  it('runs stage and fields plan on an sf CLI login, refreshing through its refresh token', async () => {
    const { emulator } = env;
    expect(username).toBe(emulator.username);
    expect(await readdir(join(home, '.sfdx'))).toContain(`${username}.json`);
    const { accounts } = seedOrg(emulator.org, { companies: 3, leads: 0, opportunities: 1 });

    const stage = await serviceCrm(['stage', '--target-org', 'acme', '--json']);
    expect(stage.code, stage.stderr).toBe(0);
    const rows = JSON.parse(stage.stdout) as { id: string }[];
    expect(rows.map((r) => r.id).sort()).toEqual([...accounts].sort());

    emulator.expireSessions();
    const refreshes = emulator.count('POST', '/services/oauth2/token');
    const plan = await serviceCrm(['fields', 'plan', '--target-org', username]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/61 fields to upsert/);
    // The session was renewed by the sf login's own refresh (how often is @salesforce/core's
    // business: its Org set-up and the command's first call may each meet the expired session).
    expect(emulator.count('POST', '/services/oauth2/token')).toBeGreaterThan(refreshes);
  }, 120_000);

  it('calls the org at API version 59.0, not the newest one the org serves', async () => {
    const { emulator } = env;
    seedOrg(emulator.org, { companies: 2 });
    const from = emulator.requests.length;
    const stage = await serviceCrm(['stage', '--target-org', 'acme', '--json']);
    expect(stage.code, stage.stderr).toBe(0);
    // @salesforce/core's own look-up of the org's edition, before it hands the connection over,
    // is its business: it asks at the newest version.
    const versions = emulator.requests
      .slice(from)
      .filter((r) => !/FROM Organization$/.test(r.query.get('q') ?? ''))
      .map((r) => /^\/services\/data\/v(\d+\.\d)\//.exec(r.path)?.[1])
      .filter((v) => v !== undefined);
    expect(versions.length).toBeGreaterThan(0);
    expect(new Set(versions)).toEqual(new Set(['59.0']));
  }, 120_000);

  it('names the sf command to run when no sf CLI login has that alias', async () => {
    const none = await serviceCrm(['stage', '--target-org', 'nope']);
    expect(none.code).toBe(3);
    expect(none.stderr.trim()).toBe(
      'service-crm: No sf CLI login is named nope: log in with `sf org login web --alias nope` (see `sf org list`)',
    );
  }, 60_000);

  it('refuses login with --target-org: one connects service-crm, the other uses the sf CLI', async () => {
    const both = await serviceCrm(['login', '--client-id', 'x', '--target-org', 'acme']);
    expect(both.code).toBe(2);
    expect(both.stderr).toMatch(/--target-org uses an sf CLI login instead/);
  }, 60_000);

  it('says how to install @salesforce/core when it is missing', async () => {
    // The built command beside a node_modules with every dependency of the package but the
    // optional peer, as after `npm install @service/crm-sync` alone.
    const root = await mkdtemp(join(tmpdir(), 'service-crm-no-sf-core-'));
    await cp(outDir, join(root, 'dist'), { recursive: true }); // the command and its chunks
    const command = join(root, 'dist/cli.js');
    const pkg = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    for (const name of Object.keys(pkg.dependencies)) {
      const link = join(root, 'node_modules', name);
      await mkdir(dirname(link), { recursive: true });
      await symlink(join(packageDir, 'node_modules', name), link);
    }
    const run = await serviceCrm(['stage', '--target-org', 'acme'], command);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(
      /--target-org uses the sf CLI logins through @salesforce\/core, which is not installed: run `npm install @salesforce\/core`/,
    );
  }, 60_000);
});
