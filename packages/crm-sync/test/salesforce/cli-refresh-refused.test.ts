// Issue 37 finding 11: a refresh Salesforce refuses for the org's login policies, an unapproved
// app or an inactive user ends with the reason, its remedy and exit 7 (an admin's setting; a new
// login does not help), an expired token or an unexplained refusal with exit 3 (log in again);
// an org or user whose API is off ends with `api_disabled` and exit 7, not as "internal".
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedOrg } from '@service/salesforce-emulator';
import { runCli } from '@service/test-support';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';
import { sfEnvironment, useEmulator } from './helpers.js';

const env = useEmulator();
let cli = '';
let home = '';

beforeAll(async () => {
  cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-refresh-refused'));
  home = await mkdtemp(join(tmpdir(), 'service-crm-refused-'));
  seedOrg(env.emulator.org, { companies: 2, leads: 0, opportunities: 1 });
}, 60_000);

afterEach(() => {
  env.emulator.refuseRefresh(undefined);
  env.emulator.apiDisabled = undefined;
});

/** `service-crm stage` on a session from the environment that must be renewed first. */
function runExpired(json: boolean) {
  const { emulator } = env;
  const tokens = emulator.issueTokens();
  emulator.expireSessions();
  return runCli(cli, ['stage', ...(json ? ['--json'] : [])], {
    cwd: home,
    env: { SERVICE_CRM_HOME: home, ...sfEnvironment(emulator, tokens) },
  });
}

describe('a refresh Salesforce refuses', () => {
  it.each([
    ['ip-restricted', 7, 'ip_restricted', /Login IP Ranges .*Logging in again does not help/],
    ['login-hours', 7, 'login_hours', /outside the user's Login Hours/],
    ['app-not-approved', 7, 'app_not_approved', /connected app is not approved for this user/],
    ['inactive-user', 7, 'user_inactive', /the user is deactivated or frozen/],
    ['expired-token', 3, 'session_expired', /refresh token expired .* Log in again/],
    ['authentication-failure', 3, 'auth_failed', /without naming a reason .*Login History/],
  ] as const)('%s: exit %i, code %s, its remedy', async (reason, exit, code, remedy) => {
    env.emulator.refuseRefresh(reason);
    const plain = await runExpired(false);
    expect(plain.code).toBe(exit);
    expect(plain.stderr).toMatch(remedy);
    expect(plain.stderr.split('\n').filter(Boolean)).toHaveLength(1);
    const json = await runExpired(true);
    expect(json.code).toBe(exit);
    expect(JSON.parse(json.stdout).error).toEqual({ code, message: expect.stringMatching(remedy) });
  });
});

describe('an org whose API is off', () => {
  it.each([
    ['org', /API_DISABLED_FOR_ORG: the org has no API access/],
    ['user', /API_CURRENTLY_DISABLED: .*"API Enabled" permission/],
  ] as const)('for the %s: exit 7, code api_disabled', async (whose, message) => {
    env.emulator.apiDisabled = whose;
    const result = await runCli(cli, ['stage', '--json'], {
      cwd: home,
      env: {
        SERVICE_CRM_HOME: home,
        SF_INSTANCE_URL: env.emulator.url,
        SF_ACCESS_TOKEN: env.emulator.issueTokens().accessToken,
      },
    });
    expect(result.code).toBe(7);
    expect(JSON.parse(result.stdout).error).toEqual({
      code: 'api_disabled',
      message: expect.stringMatching(message),
    });
  });
});
