// Issue 12 item 10: with --json every command answers one JSON document on stdout, its errors
// too ({"error":{"code","message"}}, nothing on stderr), and ends with the same exit code as
// without --json.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@service/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';
import { useEmulator } from './helpers.js';

const env = useEmulator();
let cli = '';
let home = '';
beforeAll(async () => {
  cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-json'));
  home = await mkdtemp(join(tmpdir(), 'service-crm-json-'));
  await writeFile(join(home, 'bad-config.json'), '{"motions": [{"name": "x"}]}');
  await writeFile(join(home, 'events.ndjson'), '');
}, 60_000);

const run = (args: string[], extra: Record<string, string> = {}) =>
  runCli(cli, args, { cwd: home, env: { SERVICE_CRM_HOME: home, ...extra } });

interface Failing {
  readonly name: string;
  readonly args: () => string[];
  readonly env?: () => Record<string, string>;
  readonly exit: number;
  readonly code: string;
  readonly message: RegExp;
}

const FAILING: readonly Failing[] = [
  {
    name: 'an unknown option',
    args: () => ['stage', '--bogus'],
    exit: 2,
    code: 'usage',
    message: /Unknown option '--bogus'/,
  },
  {
    name: 'an unknown command',
    args: () => ['deploy'],
    exit: 2,
    code: 'usage',
    message: /Unknown command deploy/,
  },
  {
    name: 'a secret on the command line',
    args: () => ['stage', '--access-token', 'secret-value'],
    exit: 2,
    code: 'usage',
    message: /--access-token takes no value/,
  },
  {
    name: 'login without a client id',
    args: () => ['login'],
    exit: 2,
    code: 'usage',
    message: /--client-id ID/,
  },
  {
    name: 'a bad config file',
    args: () => ['sync', '--events', 'events.ndjson', '--config', 'bad-config.json'],
    env: () => ({ SF_INSTANCE_URL: env.emulator.url, SF_ACCESS_TOKEN: 'x' }),
    exit: 2,
    code: 'usage',
    message: /motions\.0\.actions/,
  },
  {
    name: 'no connection',
    args: () => ['fields', 'plan'],
    exit: 3,
    code: 'auth',
    message: /Not connected: run `service-crm login`/,
  },
  {
    name: 'a session Salesforce refuses',
    args: () => ['stage'],
    env: () => ({
      SF_INSTANCE_URL: env.emulator.url,
      SF_ACCESS_TOKEN: `${env.emulator.org.orgId}!AQunknown`,
    }),
    exit: 3,
    code: 'session_expired',
    message: /log in again/i,
  },
];

describe('service-crm --json', () => {
  it.each(FAILING)('reports $name as a JSON error with the same exit code', async (c) => {
    const plain = await run(c.args(), c.env?.());
    expect(plain.code).toBe(c.exit);
    expect(plain.stderr).toMatch(c.message);
    const json = await run([...c.args(), '--json'], c.env?.());
    expect(json.code).toBe(c.exit);
    expect(json.stderr).toBe('');
    const answer = JSON.parse(json.stdout);
    expect(answer).toEqual({ error: { code: c.code, message: expect.stringMatching(c.message) } });
    expect(json.stdout).not.toContain('secret-value');
  });

  it('answers fields export and stage as JSON', async () => {
    const exported = await run(['fields', 'export', '--out', 'dx', '--json']);
    expect(exported.code).toBe(0);
    expect(JSON.parse(exported.stdout)).toMatchObject({
      dir: 'dx',
      projectFileWritten: true,
      deployCommand: 'cd dx && sf project deploy start --manifest manifest/package.xml',
    });
    const tokens = env.emulator.issueTokens();
    const stage = await run(['stage', '--json'], {
      SF_INSTANCE_URL: tokens.instanceUrl,
      SF_ACCESS_TOKEN: tokens.accessToken,
    });
    expect(stage.code).toBe(0);
    expect(JSON.parse(stage.stdout)).toEqual([]);
  });
});
