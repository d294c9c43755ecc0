// Token and journal files hold secrets: written to a new file of a random name, created
// exclusively without following links, mode 0600, then renamed into place, so a symlink planted
// in a shared folder never receives them.
import { lstat, mkdtemp, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { saveTokens } from '../../src/cli/credentials.js';

const tokens = {
  instanceUrl: 'https://acme.my.salesforce.com',
  accessToken: '00Dxx0000000001!AQ0AQFakeAccessToken',
  refreshToken: '5Aep861FakeRefreshToken',
  clientId: 'app',
  clientSecret: 'FakeClientSecret',
};

async function folderWithBait() {
  const dir = await mkdtemp(join(tmpdir(), 'service-crm-private-'));
  const elsewhere = await mkdtemp(join(tmpdir(), 'service-crm-elsewhere-'));
  const bait = join(elsewhere, 'collected.txt');
  await writeFile(bait, 'nothing yet\n');
  return { dir, bait, path: join(dir, 'tokens.json') };
}

describe('writing a token file', () => {
  it('never writes through a symlink planted under the temporary name it used to take', async () => {
    const { dir, bait, path } = await folderWithBait();
    await symlink(bait, `${path}.${process.pid}.tmp`);
    await saveTokens(path, tokens);
    expect(await readFile(bait, 'utf8')).toBe('nothing yet\n');
    expect(JSON.parse(await readFile(path, 'utf8'))).toEqual(tokens);
    expect((await lstat(path)).isFile()).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
    // Only the planted link and the token file: no temporary file left behind.
    expect((await readdir(dir)).sort()).toEqual(['tokens.json', `tokens.json.${process.pid}.tmp`]);
  });

  it('replaces a symlink planted under the file name itself, not the file it points to', async () => {
    const { bait, path } = await folderWithBait();
    await symlink(bait, path);
    await saveTokens(path, tokens);
    expect(await readFile(bait, 'utf8')).toBe('nothing yet\n');
    expect((await lstat(path)).isFile()).toBe(true);
    expect((await stat(path)).mode & 0o777).toBe(0o600);
  });
});
