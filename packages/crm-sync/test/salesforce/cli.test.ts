// The service-crm command as a child process against the emulator: login through the loopback
// redirect, field setup twice, a dry run, a sync of 1,000 records through an expired session and
// a 503, the Pipeline Stage; the token file is private and no token appears in any output.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedOrg, sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli } from './build-cli.js';
import { e2eConfig } from './e2e-config.js';
import { useEmulator } from './helpers.js';

// `service-crm login` is a public PKCE client: its connected app does not require the secret.
const env = useEmulator({ pageSize: 300, requireSecret: false });
const packageDir = join(import.meta.dirname, '../..');
const outDir = join(packageDir, 'node_modules/.cache/service-crm-test');
const cli = join(outDir, 'cli.js');
let home = '';
const outputs: string[] = [];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

function collect(child: ChildProcess): Promise<Run> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => {
    stdout += d;
  });
  child.stderr?.on('data', (d) => {
    stderr += d;
  });
  return new Promise((resolve) =>
    child.on('close', (code) => {
      outputs.push(stdout, stderr);
      resolve({ code, stdout, stderr });
    }),
  );
}

function start(args: string[], env: Record<string, string> = {}): ChildProcess {
  return spawn(process.execPath, [cli, ...args], {
    env: { PATH: process.env.PATH, SERVICE_CRM_HOME: home, ...env },
    cwd: home,
  });
}

const run = (args: string[], env?: Record<string, string>) => collect(start(args, env));

beforeAll(async () => {
  await buildCli(outDir); // the command under test, built from src
  home = await mkdtemp(join(tmpdir(), 'service-crm-'));
}, 60_000);

describe('service-crm', () => {
  it('logs in, sets up fields twice, syncs 1,000 records through faults, and shows stages', async () => {
    const { emulator } = env;
    const { accounts } = seedOrg(emulator.org, { companies: 500, leads: 10, opportunities: 4 });
    emulator.org.hidden.add('Lead.Title');

    // login: open the printed link as a browser would; the org redirects to the loopback callback.
    const child = start([
      'login',
      '--client-id',
      emulator.clientId,
      '--login-url',
      emulator.url,
      '--port',
      '0',
      '--no-browser',
    ]);
    const done = collect(child);
    const printed = new Promise<string>((resolve) => {
      let text = '';
      child.stderr?.on('data', (d) => {
        text += d;
        const match = /^(http:\/\/localhost:\d+\/start\S+)$/m.exec(text);
        if (match?.[1]) resolve(match[1]);
      });
    });
    const exited = done.then((r): never => {
      throw new Error(`login exited (${r.code}) before printing a URL: ${r.stderr}`);
    });
    const link = await Promise.race([printed, exited]);
    // The printed link is local and redirects once to the authorize URL.
    const url = (await fetch(link, { redirect: 'manual' })).headers.get('location') ?? '';
    expect(new URL(url).searchParams.get('scope')).toBe(
      'api sfap_api id refresh_token full openid',
    );
    const callback = await emulator.approve(url);
    expect(await (await fetch(callback)).text()).toMatch(/Connected/);
    const login = await done;
    expect(login.code).toBe(0);
    expect(login.stdout).toMatch(new RegExp(`Connected to org ${emulator.org.orgId}`));
    const tokenFile = join(home, 'tokens.json');
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    const tokens = JSON.parse(await readFile(tokenFile, 'utf8'));
    expect(tokens.refreshToken).toBeTruthy();

    const fields = await run(['fields', 'apply']);
    expect(fields.code).toBe(0);
    expect(fields.stdout).toMatch(
      /Created 61 fields, updated 0, granted 61 .* \(7 upsert calls, 1 profile update\)/,
    );
    const again = await run(['fields', 'apply']);
    expect(again.stdout).toMatch(/no changes/);
    expect((await run(['fields', 'plan'])).stdout).toMatch(/up to date/);

    const events = join(home, 'events.ndjson');
    await writeFile(events, toNdjson(sessionEvents({ companies: 500, busy: 3, newcomers: 2 })));
    const config = join(home, 'config.json');
    await writeFile(config, JSON.stringify(e2eConfig));

    const writesBefore = emulator.requests.filter((r) => r.method !== 'GET').length;
    const dry = await run(['sync', '--events', events, '--config', config, '--dry-run']);
    expect(dry.code).toBe(0);
    expect(dry.stdout).toMatch(/Dry run: 0 written, 1005 planned/);
    expect(emulator.requests.filter((r) => r.method !== 'GET').length).toBe(writesBefore);

    emulator.inject({ kind: 'expired-session', path: '/composite/sobjects', after: 1 });
    emulator.inject({ kind: 'unavailable', path: '/composite/sobjects', after: 3 });
    const composites = emulator.count('PATCH', '/composite/sobjects');
    const sync = await run(['sync', '--events', events, '--config', config, '--json']);
    expect(sync.stderr).toBe('');
    expect(sync.code).toBe(0);
    const report = JSON.parse(sync.stdout);
    expect(report.counts).toMatchObject({ written: 1005, failed: 0, pending: 0 });
    const calls = emulator.requests
      .filter((r) => r.path.endsWith('/composite/sobjects'))
      .slice(composites);
    expect(calls.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 401, 503]);
    expect(emulator.org.feed).toHaveLength(3);
    // The refreshed access token was stored; the refresh token is kept and reused.
    const after = JSON.parse(await readFile(tokenFile, 'utf8'));
    expect(after.accessToken).not.toBe(tokens.accessToken);
    expect(after.refreshToken).toBe(tokens.refreshToken);
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);

    const stage = await run(['stage', '--account', accounts[1] ?? '']);
    expect(stage.code).toBe(0);
    expect(stage.stdout).toMatch(new RegExp(`${accounts[1]}\\s+Customer`));

    const secrets = [tokens.accessToken, tokens.refreshToken, after.accessToken];
    for (const text of outputs) for (const secret of secrets) expect(text).not.toContain(secret);
  }, 180_000);

  it('on a terminal, shows a progress line that rewrites itself, and the report on fresh lines', async () => {
    const events = join(home, 'events.ndjson');
    const config = join(home, 'config.json');
    // `script` gives the command a real pseudo-terminal (stdout and stderr both reach it).
    // --full: every planned field, as if the org held none of them (the sync above wrote them).
    const command = [process.execPath, cli, 'sync', '--events', events, '--config', config]
      .concat('--dry-run', '--full')
      .map((part) => `'${part}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      env: { PATH: process.env.PATH, SERVICE_CRM_HOME: home },
      cwd: home,
    });
    const { code, stdout } = await collect(child);
    expect(code).toBe(0);
    const rewrite = '\r\u001b[2K';
    expect(stdout).toContain(`${rewrite}reading events: `);
    // The report starts on a fresh line after the last progress rewrite, never glued to it.
    const afterProgress = stdout.slice(stdout.lastIndexOf(rewrite) + rewrite.length);
    expect(afterProgress).toMatch(/^reading events: \d+ lines\r?\nwould: /);
    expect(afterProgress).toContain('Dry run: 0 written, 1005 planned');
  }, 120_000);

  it('fails with one line and a distinct exit code for usage, config and auth problems', async () => {
    const { emulator } = env;
    const bad = join(home, 'bad-config.json');
    await writeFile(
      bad,
      JSON.stringify({ motions: [{ name: 'x', actions: ['deleteEverything'] }] }),
    );
    const events = join(home, 'events.ndjson');
    const usage = await run(['sync', '--events', events, '--config', bad]);
    expect(usage.code).toBe(2);
    expect(usage.stderr.trim().split('\n')).toHaveLength(1);
    expect(usage.stderr).toMatch(/motions\.0\.actions\.0/);

    expect((await run(['fields'])).code).toBe(2);
    expect((await run(['stage', '--bogus'])).code).toBe(2);

    const token = `${emulator.org.orgId}!AQexpiredAndUnknownTokenValue`;
    const auth = await run(['fields', 'plan', '--instance-url', emulator.url], {
      SF_ACCESS_TOKEN: token,
    });
    expect(auth.code).toBe(3);
    expect(auth.stderr).toMatch(/log in again/i);
    expect(auth.stderr).not.toContain(token);
    expect(auth.stderr.trim().split('\n')).toHaveLength(1);

    const none = await run(['stage', '--token-file', join(home, 'missing.json')]);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/service-crm login/);
  }, 60_000);
});
