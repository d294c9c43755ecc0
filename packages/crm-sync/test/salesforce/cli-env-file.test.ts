// service-crm reads a session from a `.env` file in the directory it runs in (as the emulator's
// `--write-env .env` writes one); a variable set in the environment wins over the file's.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '@service/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';
import { useEmulator } from './helpers.js';

const env = useEmulator();
let cli = '';
let dir = '';
beforeAll(async () => {
  cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-env-file'));
  dir = await mkdtemp(join(tmpdir(), 'service-crm-env-file-'));
}, 60_000);

const fieldsPlan = (cwd: string, extra: Record<string, string> = {}) =>
  runCli(cli, ['fields', 'plan'], { cwd, env: { SERVICE_CRM_HOME: join(cwd, 'home'), ...extra } });

describe('service-crm and a .env file', () => {
  it('connects with the session a .env file in the current directory holds', async () => {
    const { instanceUrl, accessToken } = env.emulator.issueTokens();
    const cwd = join(dir, 'session');
    await mkdir(cwd);
    await writeFile(
      join(cwd, '.env'),
      `# written by salesforce-emulator\nSF_INSTANCE_URL=${instanceUrl}\nSF_ACCESS_TOKEN=${accessToken}\n`,
    );
    const run = await fieldsPlan(cwd);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('takes a variable set in the environment over the one in the file', async () => {
    const { instanceUrl, accessToken } = env.emulator.issueTokens();
    const cwd = join(dir, 'overridden');
    await mkdir(cwd);
    await writeFile(join(cwd, '.env'), `SF_INSTANCE_URL=${instanceUrl}\nSF_ACCESS_TOKEN=expired\n`);
    const run = await fieldsPlan(cwd, { SF_ACCESS_TOKEN: accessToken });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
  });

  it('refuses a .env it cannot read with one line, exit 2', async () => {
    const cwd = join(dir, 'unreadable');
    await mkdir(join(cwd, '.env'), { recursive: true });
    const run = await fieldsPlan(cwd);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toMatch(/^service-crm: Cannot read .*\.env: EISDIR[^\n]*$/);
  });
});
