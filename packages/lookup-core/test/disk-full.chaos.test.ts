/**
 * A full disk is an error, never a hang, on real tmpfs mounts: `ingest` into an embedded store
 * whose disk is full exits non-zero naming the directory and the lack of space, a later start on
 * the still-full disk says so too (not "PGlite failed to initialize properly"), and once space is
 * freed the store holds everything committed before. A rejects file on a disk that fills holds
 * whole lines only, and the error names it. A process stuck inside PGlite runs none of its own
 * handlers (docs/design/2026-11-29-embedded-store-faults.md), so the test's bound is a SIGKILL.
 */
import { execFileSync, spawn } from 'node:child_process';
import { statSync, truncateSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requires } from '@service/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore } from '../src/index.js';
import { cliFromSource, PACKAGE } from './support/cli.js';
import { session } from './support/events.js';

/** The bound the command must exit within; past it the child is killed and the test fails. */
const EXIT_WITHIN_MS = 10_000;

const dir = await mkdtemp(join(tmpdir(), 'disk-full-'));

/** Mounts a tmpfs of `size` at a new directory; resolves to it, or to why it cannot. */
function tmpfs(name: string, size: string): { path: string; missing?: string } {
  const path = join(dir, name);
  try {
    execFileSync('mkdir', ['-p', path]);
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path], { stdio: 'pipe' });
    return { path };
  } catch (error) {
    return { path, missing: `cannot mount a tmpfs (needs root): ${(error as Error).message}` };
  }
}

const store = tmpfs('store', '128m');
const rejects = tmpfs('rejects', '1m');
afterAll(async () => {
  // Lazily: a mount still busy (a child killed at the bound) is detached all the same.
  for (const mount of [store, rejects])
    if (mount.missing === undefined) execFileSync('umount', ['-l', mount.path]);
  await rm(dir, { recursive: true, force: true });
});

/** Runs `service-lookup ARGS` to its exit, killed with SIGKILL past `withinMs`. */
function run(
  args: string[],
  withinMs = EXIT_WITHIN_MS,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [...cliFromSource(), ...args], {
    cwd: PACKAGE,
    env: { ...process.env, DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const out = { stdout: '', stderr: '' };
  child.stdout?.on('data', (d) => (out.stdout += d));
  child.stderr?.on('data', (d) => (out.stderr += d));
  const bound = setTimeout(() => child.kill('SIGKILL'), withinMs);
  return new Promise((resolve) =>
    child.on('close', (code) => {
      clearTimeout(bound);
      resolve({ code, ...out });
    }),
  );
}

const lines = (from: number, count: number) =>
  Array.from({ length: count }, (_, i) =>
    JSON.stringify(
      session(`s${from + i}`, '2025-03-01T10:00:00Z', {
        company: { domain: `company${(from + i) % 50}.com` },
      }),
    ),
  ).join('\n');

/** Fills the disk at `path` with file `name` (dd stops at ENOSPC), then leaves `freeMiB` free. */
function fill(path: string, name: string, freeMiB = 0): string {
  const filler = join(path, name);
  try {
    execFileSync('dd', ['if=/dev/zero', `of=${filler}`, 'bs=1M'], { stdio: 'ignore' });
  } catch {
    // dd ends with "No space left on device": the disk is full, as wanted.
  }
  if (freeMiB > 0) truncateSync(filler, statSync(filler).size - freeMiB * 1024 * 1024);
  return filler;
}

describe('the embedded store on a full disk', requires(store.missing), () => {
  it('ingest exits non-zero naming the directory; committed batches stay', async () => {
    const dataDir = join(store.path, 'data');
    const first = join(dir, 'first.ndjson');
    const more = join(dir, 'more.ndjson');
    await writeFile(first, `${lines(0, 500)}\n`);
    await writeFile(more, `${lines(500, 20_000)}\n`);
    // Creating the store is not what is bounded.
    const created = await run(['ingest', first, '--data-dir', dataDir], 50_000);
    expect(created.code, created.stderr).toBe(0);
    // 20 MiB free: the store opens, but its WAL could not take a batch (PGlite once hung so).
    const nearlyFull = fill(store.path, 'filler', 20);

    const startedAt = performance.now();
    const full = await run(['ingest', more, '--data-dir', dataDir, '--batch-size', '2000']);
    console.log(
      `full disk: exit ${full.code} after ${((performance.now() - startedAt) / 1000).toFixed(1)} s`,
    );
    expect(full.code).not.toBeNull(); // exited by itself, not killed at the bound
    expect(full.code).not.toBe(0);
    expect(full.stderr).toContain(`no space left on the disk holding ${dataDir}`);
    // A later start on the disk now full says the same, not that PGlite failed to start.
    const filler = fill(store.path, 'rest');
    const again = await run(['ingest', first, '--data-dir', dataDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no space left on the disk holding ${dataDir}`);

    await rm(filler);
    await rm(nearlyFull);
    const reopened = await openEmbeddedStore({ dataDir });
    try {
      for (let i = 0; i < 50; i++)
        expect(
          await reopened.lookup({ workspace: 'default', domain: `company${i}.com` }),
        ).not.toBeNull();
      const counts = await reopened.ingest((await readFile(first, 'utf8')).split('\n'));
      expect(counts.unchanged).toBe(500);
    } finally {
      await reopened.close();
    }
  }, 60_000);
});

describe('a rejects file on a disk that fills', requires(rejects.missing), () => {
  it('holds whole lines only, and the error names the file', async () => {
    const input = join(dir, 'bad.ndjson');
    const rejectsFile = join(rejects.path, 'rejects.ndjson');
    // 3,000 rejected lines of about 1 KB: three times the 1 MB disk.
    const bad = Array.from(
      { length: 3_000 },
      (_, i) => `{"not an event": ${i}, "pad": "${'x'.repeat(1_000)}"}`,
    );
    await writeFile(input, `${bad.join('\n')}\n`);
    const result = await run(['ingest', input, '--rejects', rejectsFile]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`cannot write the rejects file ${rejectsFile}`);
    expect(result.stderr).toContain('ENOSPC');
    const written = await readFile(rejectsFile, 'utf8');
    expect(written.length).toBeGreaterThan(0);
    expect(written.endsWith('\n')).toBe(true);
    for (const record of written.slice(0, -1).split('\n'))
      expect(JSON.parse(record)).toMatchObject({ file: input });
  }, 60_000);
});
