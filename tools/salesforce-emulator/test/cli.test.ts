// The `salesforce-emulator` command as an integrator runs it: built, started with a seed file and
// a preset, its printed session used over REST, bad input refused with a message and exit 2.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ServerProcess } from '@service/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const PACKAGE = join(import.meta.dirname, '..');
const CLI = join(PACKAGE, 'dist/cli.js');
const run = promisify(execFile);
let dir = '';

beforeAll(async () => {
  await run('pnpm', ['run', 'build'], { cwd: PACKAGE });
  dir = mkdtempSync(join(tmpdir(), 'emulator-cli-'));
});
afterAll(() => {
  ServerProcess.killAll();
  rmSync(dir, { recursive: true, force: true });
});

async function start(args: string[]) {
  const { server } = await ServerProcess.start({
    command: process.execPath,
    args: [CLI, ...args],
    cwd: dir,
    ready: /SF_EMULATOR_PID=(\d+)\n/,
  });
  const session = Object.fromEntries(
    server.stdout
      .trim()
      .split('\n')
      .map((line) => line.split('=', 2) as [string, string]),
  );
  expect(Number(session.SF_EMULATOR_PID)).toBe(server.pid);
  return { server, url: session.SF_INSTANCE_URL ?? '', token: session.SF_ACCESS_TOKEN ?? '' };
}

async function query(url: string, token: string, soql: string) {
  const response = await fetch(`${url}/services/data/v59.0/query?q=${encodeURIComponent(soql)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  return (await response.json()) as { records: Record<string, unknown>[] };
}

describe('salesforce-emulator command', () => {
  it('prints a session that reads the records of its seed file', async () => {
    const seed = join(dir, 'seed.json');
    writeFileSync(
      seed,
      JSON.stringify({
        records: {
          Account: [{ $ref: 'acme', Name: 'Acme', Website: 'https://acme.com' }],
          Contact: [{ AccountId: '@acme', LastName: 'Ng', Email: 'ng@acme.com' }],
        },
      }),
    );
    const { server, url, token } = await start(['--seed', seed]);
    try {
      const { records } = await query(url, token, 'SELECT LastName, Account.Name FROM Contact');
      expect(records.map((r) => [r.LastName, (r.Account as { Name: string }).Name])).toEqual([
        ['Ng', 'Acme'],
      ]);
    } finally {
      expect(await server.stop()).toBe(0);
    }
  });

  it('refuses over-long text in the customer preset, unless that behaviour is switched off', async () => {
    const create = async (args: string[]) => {
      const { server, url, token } = await start(args);
      try {
        const response = await fetch(`${url}/services/data/v59.0/sobjects/Account`, {
          method: 'POST',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ Name: 'x'.repeat(256) }),
        });
        return [response.status, response.ok ? '' : (await response.json())[0].errorCode];
      } finally {
        await server.stop();
      }
    };
    expect(await create(['--preset', 'customer'])).toEqual([400, 'STRING_TOO_LONG']);
    expect(await create(['--preset', 'customer', '--no-field-lengths'])).toEqual([201, '']);
    expect(await create([])).toEqual([201, '']);
  });

  it('refuses a --chatter-hourly-limit that is not a whole number, with exit 2 and no stack', async () => {
    const failed = await run(process.execPath, [CLI, '--chatter-hourly-limit', 'many']).catch(
      (e) => e,
    );
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(
      'salesforce-emulator: --chatter-hourly-limit is a whole number of posts (0: no limit)\n',
    );
  });

  it('refuses a seed file naming an object the org does not have, with exit 2 and no stack', async () => {
    const seed = join(dir, 'bad.json');
    writeFileSync(seed, JSON.stringify({ records: { Invoice: [{ Name: 'x' }] } }));
    const failed = await run(process.execPath, [CLI, '--seed', seed]).catch((e) => e);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toBe(`salesforce-emulator: ${seed}: the org has no object "Invoice"\n`);
  });
});
