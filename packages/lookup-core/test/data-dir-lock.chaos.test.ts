/**
 * One process per embedded data directory: while `service-lookup serve --data-dir D` runs, an
 * `ingest` process on D and a store opened in this process are refused, naming the holder's pid
 * and the remedy, and nothing is written; once the holder is killed with SIGKILL (no cleanup of
 * its own), the directory opens again and keeps what the holder had stored.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DataDirLockedError, openEmbeddedStore } from '../src/index.js';
import { cliFromSource, PACKAGE, runCli } from './support/cli.js';
import { KEY, session } from './support/events.js';
import { lookup } from './support/serve.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'data-dir-lock-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const line = (id: string, domain: string) =>
  JSON.stringify(session(id, '2025-03-01T10:00:00Z', { company: { domain } }));

/** `serve --data-dir` as a child of its own, resolved with its pid and origin once it listens. */
async function holder(dataDir: string, events: string) {
  const child = spawn(
    process.execPath,
    [...cliFromSource(), 'serve', '--port', '0', '--data-dir', dataDir, '--events', events],
    {
      cwd: PACKAGE,
      env: { ...process.env, SERVICE_SECRET_KEYS: KEY, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stdout = '';
  const origin = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (d) => {
      stdout += d;
      const listening = /listening on (http:\/\/\S+)/.exec(stdout);
      if (listening?.[1] !== undefined) resolve(listening[1]);
    });
    child.on('exit', (code) => reject(new Error(`serve exited ${code} before listening`)));
  });
  const exited = new Promise<string | null>((resolve) => child.on('exit', (_, s) => resolve(s)));
  return { pid: child.pid as number, origin, kill: () => child.kill('SIGKILL'), exited };
}

describe('a data directory held by a running serve', () => {
  it('refuses a second process and a second store, and opens once the holder is killed', async () => {
    const dataDir = join(dir, 'data');
    const first = join(dir, 'first.ndjson');
    const second = join(dir, 'second.ndjson');
    await writeFile(first, `${line('s1', 'held.com')}\n`);
    await writeFile(second, `${line('s2', 'later.com')}\n`);
    const served = await holder(dataDir, first);

    const refused = await runCli(['ingest', second, '--data-dir', dataDir]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`in use by process ${served.pid}`);
    expect(refused.stderr).toContain('stop that process first, or use PostgreSQL');
    expect(refused.stdout).toBe('');
    const inProcess = await openEmbeddedStore({ dataDir }).catch((e: unknown) => e);
    expect(inProcess).toBeInstanceOf(DataDirLockedError);
    expect((inProcess as DataDirLockedError).pid).toBe(served.pid);
    // The holder still serves what it ingested, untouched by the refused openers.
    const held = await lookup(served.origin, KEY, { domain: 'held.com' });
    expect(held.status).toBe(200);

    served.kill();
    expect(await served.exited).toBe('SIGKILL');
    const after = await runCli(['ingest', second, '--data-dir', dataDir]);
    expect(after.stderr).toBe('');
    expect(after.code).toBe(0);
    const store = await openEmbeddedStore({ dataDir });
    try {
      expect(await store.lookup({ workspace: 'default', domain: 'held.com' })).not.toBeNull();
      expect(await store.lookup({ workspace: 'default', domain: 'later.com' })).not.toBeNull();
      // A second store in the same process is refused too, while this one is open.
      await expect(openEmbeddedStore({ dataDir })).rejects.toThrow(DataDirLockedError);
    } finally {
      await store.close();
    }
  }, 120_000);
});
