// A token refresh with rotation on a full disk keeps the login. The org revokes the old refresh
// token as it hands out the new one; the token file sits on a tmpfs filled to the last byte, so
// the new one cannot be saved there. The command still succeeds, says which file and disk, keeps
// the login beside the system's temporary files, and the next commands use it until there is
// space again, when it goes back into the token file.
import { execFileSync, spawn } from 'node:child_process';
import { appendFile, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requires } from '@service/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fileJournal } from '../../src/salesforce.js';
import { buildCli, packageDir } from '../salesforce/build-cli.js';
import { finish } from '../salesforce/cli-process.js';
import { useEmulator } from '../salesforce/helpers.js';

/** Why a tmpfs cannot be mounted here, or undefined when it can (root, mount allowed). */
function mountProblem(): string | undefined {
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs to fill needs root';
  const probe = join(tmpdir(), `service-crm-mount-probe-${process.pid}`);
  try {
    execFileSync('mkdir', ['-p', probe]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe], { stdio: 'pipe' });
    execFileSync('umount', [probe]);
    return undefined;
  } catch (error) {
    return `mount -t tmpfs is not allowed here: ${(error as Error).message.split('\n')[0]}`;
  } finally {
    execFileSync('rmdir', [probe]);
  }
}

const env = useEmulator({ rotateRefreshTokens: true });
const outDir = join(packageDir, 'node_modules/.cache/service-crm-full-disk-test');
let cli = '';
let disk = '';

/** Appends to a file on `dir` until its disk refuses: ENOSPC. */
async function fill(dir: string): Promise<string> {
  const filler = join(dir, 'filler');
  const block = Buffer.alloc(4096, 1);
  for (;;) {
    try {
      await appendFile(filler, block);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOSPC') return filler;
      throw error;
    }
  }
}

describe('service-crm renewing its login on a full disk', requires(mountProblem()), () => {
  beforeAll(async () => {
    cli = await buildCli(outDir);
    disk = await mkdtemp(join(tmpdir(), 'service-crm-full-disk-'));
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=128k,mode=0700', 'tmpfs', disk]);
  }, 60_000);
  afterAll(async () => {
    if (disk) {
      execFileSync('umount', [disk]);
      await rm(disk, { recursive: true, force: true });
    }
  });

  it('keeps the rotated refresh token, names the file and the disk, and the login stays usable', async () => {
    const { emulator } = env;
    const tokens = emulator.issueTokens();
    const tokenFile = join(disk, 'tokens.json');
    await writeFile(
      tokenFile,
      JSON.stringify({
        ...tokens,
        clientId: emulator.clientId,
        clientSecret: emulator.clientSecret,
        loginUrl: emulator.url,
      }),
      { mode: 0o600 },
    );
    const filler = await fill(disk);
    const temporary = await mkdtemp(join(tmpdir(), 'service-crm-pending-'));
    const run = () =>
      finish(
        spawn(process.execPath, [cli, 'stage', '--json'], {
          env: { PATH: process.env.PATH, SERVICE_CRM_HOME: disk, TMPDIR: temporary },
          stdio: ['ignore', 'pipe', 'pipe'],
        }),
      );
    const refreshes = () => emulator.count('POST', '/services/oauth2/token');

    emulator.expireSessions();
    const full = await run();
    expect(full.code).toBe(0);
    expect(refreshes()).toBe(1);
    expect(full.stderr).toContain(
      `Cannot write ${tokenFile}: no space is left on the disk holding ${disk} (ENOSPC`,
    );
    expect(JSON.parse(await readFile(tokenFile, 'utf8')).refreshToken).toBe(tokens.refreshToken);

    // The token file's refresh token is revoked now; the kept one renews the session.
    emulator.expireSessions();
    const stillFull = await run();
    expect(stillFull.code).toBe(0);
    expect(refreshes()).toBe(2);

    await rm(filler);
    emulator.expireSessions();
    const freed = await run();
    expect(freed.code).toBe(0);
    expect(freed.stderr).toBe('');
    expect(refreshes()).toBe(3);
    const saved = JSON.parse(await readFile(tokenFile, 'utf8'));
    expect(saved.refreshToken).not.toBe(tokens.refreshToken);
    expect(
      (await readdir(temporary, { recursive: true })).filter((f) => f.endsWith('.json')),
    ).toEqual([]);

    // The saved login works on its own.
    emulator.expireSessions();
    expect((await run()).code).toBe(0);
    expect(refreshes()).toBe(4);
  }, 120_000);

  it('fails a journal write on the full disk naming the file and the disk, the old journal whole', async () => {
    const path = join(disk, 'sync-journal.json');
    const journal = await fileJournal(path);
    await journal.record({ 'create:Lead:a@x.io': '00Q1' });
    const filler = await fill(disk);
    try {
      await expect(journal.record({ 'create:Lead:b@x.io': '00Q2' })).rejects.toMatchObject({
        code: 'ENOSPC',
        message: expect.stringContaining(
          `Cannot write ${path}: no space is left on the disk holding ${disk} (ENOSPC`,
        ),
      });
      expect(JSON.parse(await readFile(path, 'utf8'))).toEqual({ 'create:Lead:a@x.io': '00Q1' });
      expect((await readdir(disk)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      await rm(filler);
    }
  });
});
