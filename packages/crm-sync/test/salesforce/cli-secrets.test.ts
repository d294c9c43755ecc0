// Issue 12 item 9: tokens and client secrets never on the command line; a session from the
// environment or standard input is never paired with the token file, and a renewed token is
// written only to the token file it came from, which stays mode 0600.
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedOrg } from '@service/salesforce-emulator';
import { type CliRunOptions, runCli } from '@service/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { saveTokens } from '../../src/cli/credentials.js';
import { buildCli, packageDir } from './build-cli.js';
import { sfEnvironment, useEmulator } from './helpers.js';

const env = useEmulator({ pageSize: 300 });
let cli = '';
let home = '';

beforeAll(async () => {
  cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-secrets'));
  home = await mkdtemp(join(tmpdir(), 'service-crm-secrets-'));
  seedOrg(env.emulator.org, { companies: 3, leads: 0, opportunities: 1 });
}, 60_000);

const run = (args: string[], options: Omit<CliRunOptions, 'cwd'> = {}) =>
  runCli(cli, args, { cwd: home, ...options, env: { SERVICE_CRM_HOME: home, ...options.env } });

/** A token file as `login` writes it, for a session of its own. */
async function tokenFile(name: string) {
  const { emulator } = env;
  const path = join(home, name);
  const tokens = emulator.issueTokens();
  await saveTokens(path, {
    ...tokens,
    clientId: emulator.clientId,
    clientSecret: emulator.clientSecret,
    loginUrl: emulator.url,
  });
  return { path, tokens, text: await readFile(path, 'utf8') };
}

const requestsTo = (from: number) => env.emulator.requests.slice(from);

describe('secrets on the command line', () => {
  it.each(['access-token', 'refresh-token', 'client-secret'])(
    'refuses --%s with a value, saying why, without repeating it or calling the org',
    async (flag) => {
      const { emulator } = env;
      const secret = emulator.issueTokens().accessToken; // a value that would work
      const before = emulator.requests.length;
      for (const args of [
        ['stage', '--instance-url', emulator.url, `--${flag}`, secret],
        ['login', '--client-id', emulator.clientId, `--${flag}=${secret}`],
      ]) {
        const result = await run(args);
        expect(result.code).toBe(2);
        expect(result.stderr).toMatch(
          new RegExp(`--${flag} takes no value on the command line, where ps and shell history`),
        );
        expect(result.stderr).toContain(`\`--${flag} -\``);
        expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
      }
      expect(requestsTo(before)).toEqual([]);
    },
  );

  it('reads the access token from standard input with --access-token -', async () => {
    const { emulator } = env;
    const { accessToken } = emulator.issueTokens();
    const refreshes = emulator.count('POST', '/services/oauth2/token');
    const result = await run(
      ['stage', '--json', '--instance-url', emulator.url, '--access-token', '-'],
      { stdin: `${accessToken}\n` },
    );
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toHaveLength(3);
    // The piped token itself was accepted: nothing was renewed, and there is no token file.
    expect(emulator.count('POST', '/services/oauth2/token')).toBe(refreshes);
  });

  it('reads the client secret for a refresh from standard input', async () => {
    const { emulator } = env;
    const tokens = emulator.issueTokens();
    emulator.expireSessions();
    const result = await run(['stage', '--client-secret', '-'], {
      stdin: emulator.clientSecret,
      env: {
        SF_INSTANCE_URL: tokens.instanceUrl,
        SF_ACCESS_TOKEN: tokens.accessToken,
        SF_REFRESH_TOKEN: tokens.refreshToken,
        SF_CLIENT_ID: emulator.clientId,
        SF_LOGIN_URL: emulator.url,
      },
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
  });

  it('refuses empty standard input and two secrets on it', async () => {
    const empty = await run(['stage', '--access-token', '-'], {
      env: { SF_INSTANCE_URL: env.emulator.url },
    });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toMatch(
      /standard input must hold the access token alone \(it was empty\)/,
    );
    const two = await run(['stage', '--access-token', '-', '--client-secret', '-'], {
      stdin: 'x',
    });
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/Only one secret can be read from standard input/);
  });
});

describe('a session from the environment and the token file', () => {
  it('never pairs SF_ACCESS_TOKEN with the token file instance', async () => {
    const { emulator } = env;
    const file = await tokenFile('tokens.json'); // the default token file under SERVICE_CRM_HOME
    const { accessToken } = emulator.issueTokens(); // valid, so a pairing would succeed
    const before = emulator.requests.length;
    const result = await run(['stage'], { env: { SF_ACCESS_TOKEN: accessToken } });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /needs the instance URL \(SF_INSTANCE_URL or --instance-url URL\)/,
    );
    expect(result.stderr).toMatch(/never taken from the token file/);
    expect(requestsTo(before)).toEqual([]);
    expect(await readFile(file.path, 'utf8')).toBe(file.text);
  });

  it('refuses a session from the environment together with --token-file', async () => {
    const { emulator } = env;
    const file = await tokenFile('chosen.json');
    const session = emulator.issueTokens();
    const before = emulator.requests.length;
    const result = await run(['stage', '--token-file', file.path], {
      env: { SF_INSTANCE_URL: session.instanceUrl, SF_ACCESS_TOKEN: session.accessToken },
    });
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/and --token-file .*chosen\.json too: use one/);
    expect(requestsTo(before)).toEqual([]);
  });

  it('never writes a token renewed for an environment session into the token file', async () => {
    const { emulator } = env;
    const file = await tokenFile('tokens.json');
    const session = emulator.issueTokens();
    emulator.expireSessions(); // both sessions' access tokens; the run must refresh its own
    const refreshes = emulator.count('POST', '/services/oauth2/token');
    const result = await run(['stage'], {
      env: sfEnvironment(emulator, session),
    });
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    expect(emulator.count('POST', '/services/oauth2/token')).toBe(refreshes + 1);
    expect(await readFile(file.path, 'utf8')).toBe(file.text);
  });

  it('writes a token renewed for the token file session back to it, mode 0600', async () => {
    const { emulator } = env;
    const file = await tokenFile('own.json');
    emulator.expireSessions();
    const result = await run(['stage', '--token-file', file.path]);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    const after = JSON.parse(await readFile(file.path, 'utf8'));
    expect(after.accessToken).not.toBe(file.tokens.accessToken);
    expect(after.instanceUrl).toBe(file.tokens.instanceUrl);
    expect((await stat(file.path)).mode & 0o777).toBe(0o600);
  });
});
