// `service-lookup ingest` (the built command, as users run it) on both stores: events/s from
// start to exit, computed from the events the store holds afterwards (read back), at 100,000 and
// 1,000,000 sessions. Targets: >= 20,000/s embedded, >= 50,000/s PostgreSQL at 1M.
// Sizes: INGEST_BENCH_SESSIONS=100000,1000000 (default); stores: INGEST_BENCH_STORES=embedded,postgres.
// Each run also prints the CPU per event of the command (its process, threads included; the
// embedded store's database runs inside it) and of PostgreSQL (the backends serving the bench's
// database on a local server, sampled from /proc while the command runs), and the rate the
// machine's cores would allow at that cost.
// INGEST_BENCH_PROFILE=1 also profiles the command (node --cpu-prof) and prints where its time went.
// INGEST_BENCH_BASELINE=/path/to/other/dist/cli.js runs that build too, on the same file right after,
// and prints its figure and the ratio (the machine is shared: compare within one run).
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LookupStore, openEmbeddedStore, openPostgresStore } from '@service/lookup-core';
import { createTestDatabase } from '@service/test-support';

const SIZES = (process.env.INGEST_BENCH_SESSIONS ?? '100000,1000000').split(',').map(Number);
const STORES = (process.env.INGEST_BENCH_STORES ?? 'embedded,postgres').split(',');
const TARGETS: Record<string, number> = { embedded: 20_000, postgres: 50_000 };
const CLI = join(import.meta.dirname, '../packages/lookup-core/dist/cli.js');
const PROFILE = process.env.INGEST_BENCH_PROFILE === '1';
const BASELINE = process.env.INGEST_BENCH_BASELINE;
/** Sessions per company: 100,000 sessions in 2,000 companies, the size the ingest targets are set at. */
const SESSIONS_PER_COMPANY = 50;

/** What every session of the file shares; the loop below sets what differs. */
const SESSION = {
  type: 'session',
  active_time: 180,
  pages_visited: ['/', '/pricing', '/docs'],
  referrer: 'https://www.google.com/',
  city: 'Austin',
  state: 'Texas',
  country: 'United States',
};
const INTENTS = ['low', 'medium', 'high', 'very_high'];

/** Writes `total` sessions as NDJSON: half identified (20 contacts per company), varied intent. */
async function writeEvents(file: string, total: number): Promise<void> {
  const out = createWriteStream(file);
  const companies = Math.max(1, Math.floor(total / SESSIONS_PER_COMPANY));
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < total; i++) {
    const c = i % companies;
    const domain = `company${c}.com`;
    const line = JSON.stringify({
      ...SESSION,
      id: `s${i}`,
      company: { domain, name: `Company ${c}`, industry: 'Software' },
      ...(i % 2 === 0 && { contact: { email: `person${(i >> 1) % 20}@${domain}` } }),
      visitor_id: `v${i % 50_021}`,
      start_time: new Date(base + i * 1_000).toISOString(),
      end_time: new Date(base + i * 1_000 + 240_000).toISOString(),
      signals: i % 7 === 0 ? ['Pricing page'] : [],
      intent: INTENTS[i % 4],
    });
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
}

interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string } }>;
  samples: number[];
}

const VALIDATION = new Set([
  'parseEvent',
  'instant',
  'hasUnstorableText',
  'remembered',
  'normalizeDomain',
  'normalizeEmail',
  'fitsJsonBytes',
  'jsonBytes',
]);
const READING = new Set(['readNdjson', 'available', 'restOfLine', 'consume']);

/** The part of the command a profile frame belongs to (by function, since dist is bundled). */
function partOf(f: { functionName: string; url: string }): string {
  if (f.functionName === '(idle)') return 'idle (waiting for the database or for lines)';
  if (f.functionName === '(garbage collector)') return 'garbage collection';
  if (f.url.startsWith('wasm')) return 'PGlite PostgreSQL (wasm)';
  if (f.url.includes('@electric-sql/pglite')) return 'PGlite JS (file system, protocol)';
  if (f.url.includes('/zod/') || VALIDATION.has(f.functionName)) return 'validation';
  if (f.url.includes('/pg/') || f.url.includes('pg-protocol')) return 'pg driver';
  if (READING.has(f.functionName)) return 'reading NDJSON';
  return 'other (batching, hashing, node)';
}

/** Where one thread's samples fell, by part, as shares of all its samples. */
async function threadSummary(file: string): Promise<string> {
  const profile = JSON.parse(await readFile(file, 'utf8')) as CpuProfile;
  const part = new Map<number, string>();
  for (const { id, callFrame: f } of profile.nodes) part.set(id, partOf(f));
  const counts = new Map<string, number>();
  for (const id of profile.samples) {
    const p = part.get(id) ?? 'other (batching, hashing, node)';
    counts.set(p, (counts.get(p) ?? 0) + 1);
  }
  return [...counts]
    .sort((a, b) => b[1] - a[1])
    .map(([p, n]) => `${p} ${((100 * n) / profile.samples.length).toFixed(0)}%`)
    .join(', ');
}

/**
 * Where a profiled run's samples fell, per thread: node writes one profile per thread, named
 * `CPU.<date>.<time>.<pid>.<thread>.<seq>.cpuprofile`, thread 0 being the main one.
 */
async function profileSummary(dir: string): Promise<string> {
  const files = (await readdir(dir)).sort();
  const lines = await Promise.all(
    files.map(async (name) => {
      const thread = name.split('.').at(-3) === '0' ? 'main thread' : 'validation thread';
      return `${thread}: ${await threadSummary(join(dir, name))}`;
    }),
  );
  return lines.join('\n  ');
}

/** Clock ticks per second of /proc's CPU times (USER_HZ: 100 on every Linux this runs on). */
const TICKS = 100;
/** utime, stime, cutime and cstime of a /proc/PID/stat line, in ticks (fields after the name). */
const statTicks = (stat: string): number[] =>
  stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .slice(11, 15)
    .map(Number);
/** CPU seconds of this process's waited-for children (the ingest command, once it has exited). */
function childrenCpuSeconds(): number {
  const [, , cutime = 0, cstime = 0] = statTicks(readFileSync('/proc/self/stat', 'utf8'));
  return (cutime + cstime) / TICKS;
}
/** The CPU ticks of a process, or undefined once it has ended. */
function processTicks(pid: string): number | undefined {
  try {
    return statTicks(readFileSync(`/proc/${pid}/stat`, 'utf8')).reduce((a, b) => a + b, 0);
  } catch {
    return undefined; // ended since the listing
  }
}
/**
 * The CPU of the PostgreSQL backends serving one database (a local server's, found by the title
 * each backend gives itself: `postgres: ... USER DATABASE HOST(PORT) STATE`), sampled while the
 * command runs: a backend's CPU is gone from /proc once it ends, and other engineers' backends
 * (and the server's own writers) on this shared machine are not the bench's. What a backend spent
 * after the last sample (at most `SAMPLE_MS` of its life) is missed.
 */
class BackendCpu {
  static readonly SAMPLE_MS = 20;
  readonly #latest = new Map<string, number>();
  readonly #title: string;
  readonly #timer: NodeJS.Timeout;
  constructor(database: string) {
    this.#title = ` ${database} `;
    this.#timer = setInterval(() => this.sample(), BackendCpu.SAMPLE_MS);
  }
  /** Processes that are not PostgreSQL's: never read again (a backend is forked anew, new pid). */
  readonly #others = new Set<string>();
  sample(): void {
    for (const pid of readdirSync('/proc')) {
      if (this.#others.has(pid) || !/^\d+$/.test(pid)) continue;
      if (!this.#latest.has(pid) && !this.#serves(pid)) continue;
      const ticks = processTicks(pid);
      if (ticks !== undefined) this.#latest.set(pid, ticks);
    }
  }
  /** Whether `pid` is a backend of the database (a backend still starting is asked again). */
  #serves(pid: string): boolean {
    try {
      if (readFileSync(`/proc/${pid}/comm`, 'utf8') !== 'postgres\n') {
        this.#others.add(pid);
        return false;
      }
      const title = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
      return title.startsWith('postgres:') && title.includes(this.#title);
    } catch {
      return false; // ended since the listing
    }
  }
  /** Stops sampling; answers the CPU seconds seen, undefined when no backend was (a remote server). */
  stop(): number | undefined {
    clearInterval(this.#timer);
    if (this.#latest.size === 0) return undefined;
    let ticks = 0;
    for (const t of this.#latest.values()) ticks += t;
    return ticks / TICKS;
  }
}
const perEvent = (seconds: number, events: number) => `${((seconds / events) * 1e6).toFixed(1)} µs`;

interface Target {
  flags: string[];
  /** The PostgreSQL database ingested into (its backends' CPU is the database's). */
  database?: string;
  open(): Promise<LookupStore>;
  drop(): Promise<void>;
}

/** Sessions the store holds, read back from its aggregates. */
async function storedSessions(target: Target): Promise<number> {
  const store = await target.open();
  try {
    let sessions = 0;
    for await (const { company } of store.readAggregates()) sessions += company.sessions;
    return sessions;
  } finally {
    await store.close();
  }
}

async function embedded(dir: string): Promise<Target> {
  const dataDir = join(dir, 'data');
  return {
    flags: ['--data-dir', dataDir],
    open: () => openEmbeddedStore({ dataDir }),
    drop: () => rm(dataDir, { recursive: true, force: true }),
  };
}

async function postgres(): Promise<Target> {
  const database = await createTestDatabase('ingest_bench');
  if (database.missing !== undefined) throw new Error(database.missing);
  return {
    flags: ['--database-url', database.url],
    database: new URL(database.url).pathname.slice(1),
    open: () => openPostgresStore({ connectionString: database.url }),
    drop: () => database.drop(),
  };
}

const failures: string[] = [];

/** Runs node with `args` to its exit, sampling meanwhile; answers its exit code and error output. */
function runCommand(args: string[]): Promise<{ status: number | null; stderr: string }> {
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (text: string) => {
    stderr += text;
  });
  return new Promise((resolve) => {
    child.on('error', (error) => resolve({ status: null, stderr: String(error) }));
    child.on('close', (status) => resolve({ status, stderr }));
  });
}

/** Runs `cli ingest FILE` into a fresh store; prints and answers its events/s (undefined on failure). */
async function measure(
  cli: string,
  store: string,
  size: number,
  file: string,
  label = store,
): Promise<number | undefined> {
  let target: Target;
  try {
    target = store === 'postgres' ? await postgres() : await embedded(dir);
  } catch (error) {
    failures.push(`${store} at ${size}: could not prepare the store: ${(error as Error).message}`);
    return undefined;
  }
  try {
    const profileDir = join(dir, `profile-${label}-${store}-${size}`);
    const profiling = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
    const backends = target.database === undefined ? undefined : new BackendCpu(target.database);
    const nodeBefore = childrenCpuSeconds();
    const started = performance.now();
    const run = await runCommand([...profiling, cli, 'ingest', file, ...target.flags]);
    const seconds = (performance.now() - started) / 1000;
    const nodeCpu = childrenCpuSeconds() - nodeBefore;
    const databaseCpu = backends?.stop();
    if (run.status !== 0) {
      failures.push(`${label} at ${size}: ingest exited ${run.status}: ${run.stderr}`);
      return undefined;
    }
    const stored = await storedSessions(target);
    if (stored !== size) failures.push(`${label} at ${size}: stored ${stored} of ${size} events`);
    const rate = stored / seconds;
    const goal = TARGETS[store] ?? 0;
    console.log(
      `${label.padEnd(9)} ${size.toLocaleString('en').padStart(10)} sessions  ${seconds.toFixed(1).padStart(7)} s  ${Math.round(rate).toLocaleString('en').padStart(8)} events/s  (${store} target ${goal.toLocaleString('en')}/s at 1,000,000: ${(rate / goal).toFixed(2)}x)`,
    );
    // What bounds the rate: CPU per event of the command and of the database, against the cores
    // both share (the command's threads and the database's backend all run on this machine).
    const cores = availableParallelism();
    const cpu = nodeCpu + (databaseCpu ?? 0);
    console.log(
      `  CPU: command${target.database === undefined ? ' (its database in-process)' : ''} ${nodeCpu.toFixed(1)} s (${perEvent(nodeCpu, stored)}/event)${
        databaseCpu === undefined
          ? ''
          : `, database backends ${databaseCpu.toFixed(1)} s (${perEvent(databaseCpu, stored)}/event)`
      }; ${(cpu / seconds).toFixed(2)} of ${cores} cores busy; all ${cores} busy would allow ${Math.round(
        (cores * stored) / cpu,
      ).toLocaleString('en')} events/s`,
    );
    if (PROFILE) console.log(`  profile: ${await profileSummary(profileDir)}`);
    return rate;
  } finally {
    await target.drop();
  }
}

const dir = await mkdtemp(join(tmpdir(), 'ingest-bench-'));
try {
  for (const size of SIZES) {
    const file = join(dir, `events-${size}.ndjson`);
    await writeEvents(file, size);
    for (const store of STORES) {
      const rate = await measure(CLI, store, size, file);
      if (rate === undefined || BASELINE === undefined) continue;
      const baseline = await measure(BASELINE, store, size, file, 'baseline');
      if (baseline !== undefined)
        console.log(`  this build / baseline: ${(rate / baseline).toFixed(2)}x`);
    }
    await rm(file, { force: true });
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
if (failures.length > 0) {
  console.error(`ingest bench FAILED:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
