/**
 * `service-lookup ingest` killed with SIGKILL in the middle of a large file, then run again: the
 * aggregates (and what lookups answer) equal those of one clean run, on the embedded store with
 * a data dir and on PostgreSQL. Nothing acknowledged is lost, nothing is counted twice.
 *
 * The kill is triggered by the command's own progress line (printed after each committed batch;
 * a preloaded module makes the command believe stderr is a terminal), not by a timer. A SIGINT
 * sent the same way stops it with exit 130, keeping what it reported committed.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, requires } from '@service/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LookupStore,
  type ObservedCompany,
  openEmbeddedStore,
  openPostgresStore,
} from '../src/index.js';
import { readNdjson } from '../src/node.js';
import { cliFromSource, PACKAGE } from './support/cli.js';
import { linkedin, session } from './support/events.js';

const WORKSPACES = ['default', 'second'];
const EVENTS = 24_000;
/** Kill once this many events are reported committed (a batch ends at each later version of an id it holds: about every 1,000 events). */
const KILL_AFTER = 3_000;
const PRETEND_TTY = 'data:text/javascript,process.stderr.isTTY=true';

/**
 * A large file of varied events: two workspaces, 150 companies, identified and anonymous
 * sessions, LinkedIn engagement, exact repeats and later versions of earlier ids.
 */
function generatedLines(): string[] {
  const lines: string[] = [];
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < EVENTS; i++) {
    const workspace = WORKSPACES[i % 7 === 0 ? 1 : 0];
    const company = { domain: `company${i % 150}.com`, name: `Company ${i % 150}` };
    const contact = i % 3 === 0 ? { email: `p${i % 400}@company${i % 150}.com` } : undefined;
    const at = new Date(base + i * 60_000).toISOString();
    const event =
      i % 10 === 9
        ? linkedin(`li${i}`, at, { workspace, company, contact })
        : session(`s${i}`, at, { workspace, company, contact, intent: ['low', 'high'][i % 2] });
    lines.push(JSON.stringify(event));
    if (i % 500 === 250) lines.push(JSON.stringify(event)); // an exact repeat
    if (i % 1000 === 999) {
      // A later version of a session about 900 events back: replaces it.
      const j = i - 901;
      lines.push(
        JSON.stringify(
          session(`s${j}`, new Date(base + j * 60_000).toISOString(), {
            workspace: WORKSPACES[j % 7 === 0 ? 1 : 0],
            company: { domain: `company${(j + 1) % 150}.com` },
            intent: 'very_high',
          }),
        ),
      );
    }
  }
  return lines;
}

interface Snapshot {
  aggregates: Record<string, ObservedCompany[]>;
  lookups: unknown[];
}

async function snapshot(store: LookupStore): Promise<Snapshot> {
  const aggregates: Record<string, ObservedCompany[]> = {};
  for (const workspace of WORKSPACES) {
    const all: ObservedCompany[] = [];
    for await (const observed of store.readAggregates({ workspace })) all.push(observed);
    aggregates[workspace] = all;
  }
  const lookups = [];
  for (const workspace of WORKSPACES)
    for (const n of [0, 1, 77, 149]) {
      lookups.push(
        await store.lookup({ workspace, domain: `company${n}.com`, includeActivity: true }),
      );
      lookups.push(await store.lookup({ workspace, email: `p${n * 2}@company${n}.com` }));
    }
  return { aggregates, lookups };
}

function ingest(args: string[], preload: string[] = []): ChildProcess {
  return spawn(process.execPath, [...cliFromSource(preload), 'ingest', ...args], {
    cwd: PACKAGE,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs the ingest and sends `signal` once its progress line reports KILL_AFTER committed events. */
async function killMidway(
  args: string[],
  signal: 'SIGKILL' | 'SIGINT' = 'SIGKILL',
): Promise<{ code: number | null; signal: string | null; reported: number }> {
  const child = ingest(args, [PRETEND_TTY]);
  let reported = 0;
  let stderr = '';
  let sent = false;
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
    const counts = [...stderr.matchAll(/ (\d+) new, (\d+) unchanged, (\d+) replaced/g)].at(-1);
    if (counts === undefined) return;
    reported = Number(counts[1]) + Number(counts[2]) + Number(counts[3]);
    if (reported >= KILL_AFTER && child.exitCode === null && !sent) sent = child.kill(signal);
  });
  const [code, ended] = await new Promise<[number | null, string | null]>((resolve) =>
    child.on('close', (c, s) => resolve([c, s])),
  );
  return { code, signal: ended, reported };
}

function runToEnd(args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = ingest(args);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) =>
    child.on('close', (code) =>
      code === 0
        ? resolve({ code, stdout })
        : reject(new Error(`ingest exited ${code}: ${stderr}`)),
    ),
  );
}

let dir: string;
let file: string;
let lineCount: number;
let clean: Snapshot;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kill-ingest-'));
  file = join(dir, 'events.ndjson');
  const lines = generatedLines();
  lineCount = lines.length;
  await writeFile(file, `${lines.join('\n')}\n`);
  // The reference: one clean, uninterrupted ingest of the same file.
  const store = await openEmbeddedStore();
  const counts = await store.ingest(readNdjson(file));
  expect(counts.rejected).toEqual([]);
  clean = await snapshot(store);
  await store.close();
  expect(clean.aggregates.default?.length).toBe(150);
}, 120_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

/** Kill mid-way, re-run, and compare with the clean run. */
async function killAndRerun(storeArgs: string[], open: () => Promise<LookupStore>) {
  const killed = await killMidway([file, ...storeArgs]);
  expect(killed.signal).toBe('SIGKILL');
  expect(killed.reported).toBeGreaterThanOrEqual(KILL_AFTER);

  const rerun = await runToEnd([file, ...storeArgs]);
  const [, ingested, unchanged, replaced, rejected] =
    rerun.stdout.match(/(\d+) ingested, (\d+) unchanged, (\d+) replaced, (\d+) rejected/) ?? [];
  // What the killed run reported committed survived; the kill came before the end of the file.
  expect(Number(unchanged) + Number(replaced)).toBeGreaterThanOrEqual(killed.reported);
  expect(Number(replaced)).toBeGreaterThan(0); // later versions were met again, and won again
  expect(Number(ingested)).toBeGreaterThan(0);
  expect(Number(ingested) + Number(unchanged) + Number(replaced)).toBe(lineCount);
  expect(Number(rejected)).toBe(0);
  console.log(
    `kill-ingest ${storeArgs[0]}: killed after ${killed.reported} of ${lineCount} events reported committed; re-run: ${ingested} ingested, ${unchanged} unchanged, ${replaced} replaced`,
  );

  const store = await open();
  try {
    expect(await snapshot(store)).toEqual(clean);
  } finally {
    await store.close();
  }
}

describe('SIGKILL in the middle of service-lookup ingest, then a re-run', () => {
  it('embedded store with --data-dir: the aggregates equal one clean run', async () => {
    const dataDir = join(dir, 'data');
    await killAndRerun(['--data-dir', dataDir], () => openEmbeddedStore({ dataDir }));
  }, 180_000);

  describe('PostgreSQL', async () => {
    const database = await createTestDatabase();
    afterAll(() => database.drop());
    it('--database-url: the aggregates equal one clean run', {
      ...requires(database.missing),
      timeout: 180_000,
    }, async () => {
      await killAndRerun(['--database-url', database.url], () =>
        openPostgresStore({ connectionString: database.url }),
      );
    });
  });
});

describe('SIGINT in the middle of service-lookup ingest', () => {
  // The whole file is read and validated ahead of the batches; a SIGINT sent once they commit
  // must still stop the command (it once went unseen until the end, and the command exited 0).
  it('exits 130 and keeps every batch it reported committed', async () => {
    const dataDir = join(dir, 'interrupted');
    const interrupted = await killMidway([file, '--data-dir', dataDir], 'SIGINT');
    expect(interrupted.code).toBe(130);
    expect(interrupted.reported).toBeGreaterThanOrEqual(KILL_AFTER);
    const store = await openEmbeddedStore({ dataDir });
    try {
      // Ingesting the file again finds every reported event already stored.
      const again = await store.ingest(readNdjson(file));
      expect(again.unchanged + again.replaced).toBeGreaterThanOrEqual(interrupted.reported);
      expect(again.ingested).toBeGreaterThan(0); // it stopped before the end of the file
      expect(await snapshot(store)).toEqual(clean);
    } finally {
      await store.close();
    }
  }, 180_000);
});
