/**
 * The embedded store on disk keeps its WAL bounded: PGlite's single-user PostgreSQL never
 * checkpoints on its own, so without the store's checkpoints every segment written since the data
 * directory was created stayed in `pg_wal` for as long as the process ran. Here a run writes about
 * 90 MB of WAL, more than `CHECKPOINT_WAL_BYTES`; the first segments must have been removed or recycled, and the
 * store must answer the same after closing and opening again (the checkpoint lost nothing).
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openEmbeddedStore } from '../src/index.js';
import { session } from './support/events.js';

const EVENTS = 60_000;
const COMPANIES = 300;
const QUERY = { workspace: 'default', domain: 'company7.com', includeActivity: true };

function* events() {
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < EVENTS; i++) {
    const c = i % COMPANIES;
    yield session(`s${i}`, new Date(base + i * 60_000).toISOString(), {
      company: { domain: `company${c}.com`, name: `Company ${c}` },
      contact: i % 2 === 0 ? { email: `p${i % 4_000}@company${c}.com` } : undefined,
    });
  }
}

const walFiles = async (dataDir: string) =>
  (await readdir(join(dataDir, 'pg_wal'))).filter((name) => /^[0-9A-F]{24}$/.test(name)).sort();

describe('the embedded store on disk: WAL', () => {
  let dir: string;
  let dataDir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'wal-checkpoints-'));
    dataDir = join(dir, 'data');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('removes or recycles the segments before its last checkpoint, and loses nothing', async () => {
    const store = await openEmbeddedStore({ dataDir });
    const first = (await walFiles(dataDir))[0];
    // Batches of 10,000: the check after each commit sees the WAL cross the threshold mid-run.
    const result = await store.ingest(events(), { batchSize: 10_000 });
    expect(result.ingested).toBe(EVENTS);
    const files = await walFiles(dataDir);
    const before = await store.lookup(QUERY);
    await store.close();

    expect(first).toBeDefined();
    // The segment the data directory started with is gone (removed, or renamed for reuse).
    expect(files).not.toContain(first);

    const reopened = await openEmbeddedStore({ dataDir });
    try {
      expect(await reopened.lookup(QUERY)).toEqual(before);
      expect(before?.company.service_sessions).toBe(EVENTS / COMPANIES);
    } finally {
      await reopened.close();
    }
  }, 120_000);
});
