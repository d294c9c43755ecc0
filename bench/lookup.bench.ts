// Lookup throughput over HTTP on both stores, as ratios to servers measured beside it in the same
// run: bare node:http sending the same bytes, the lookup's shell over a constant store, and a
// minimal Hono app on @hono/node-server. Every server runs in a child process of its own
// (lookup-servers.ts); autocannon runs here. Each figure is the best of three runs after a
// warm-up, computed from the requests autocannon completed.
//   LOOKUP_BENCH_SESSIONS=100000,1000000 (default)   LOOKUP_BENCH_STORES=embedded,postgres
//   LOOKUP_BENCH_SECONDS=5 per run                     LOOKUP_BENCH_CONNECTIONS=50
// Ingest events/s is measured by ingest.bench.ts.
import { type ChildProcess, execFileSync, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { BENCH_KEY, hotSet, type Lookup, wideSet } from './lookup-data.ts';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const SIZES = (process.env.LOOKUP_BENCH_SESSIONS ?? '100000,1000000').split(',').map(Number);
const STORES = (process.env.LOOKUP_BENCH_STORES ?? 'embedded,postgres').split(',');
const SECONDS = Number(process.env.LOOKUP_BENCH_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.LOOKUP_BENCH_CONNECTIONS ?? 50);
const WARM_UP_SECONDS = 2;
const RUNS = 3;
const INGEST_PER_SECOND = 100;
const TARGETS = { hot: 0.6, shell: 0.9 };

interface Server {
  child: ChildProcess;
  origin: string;
  info: Record<string, unknown>;
  stop(): void;
}

/** Starts `lookup-servers.ts KIND` and resolves once it listens. */
function start(kind: string, env: Record<string, string>): Promise<Server> {
  const child = fork(join(import.meta.dirname, 'lookup-servers.ts'), [kind], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (info: { port: number }) =>
      resolve({
        child,
        origin: `http://127.0.0.1:${info.port}`,
        info,
        stop: () => child.kill('SIGKILL'),
      }),
    );
    child.once('exit', (code) =>
      reject(new Error(`${kind} server exited (${code}) before listening`)),
    );
  });
}

/**
 * One request template that takes the next body of `lookups` each time (shared by every
 * connection): autocannon would otherwise pre-build every body for every connection, which for
 * 10,000 bodies stalls the generator itself.
 */
function requestsOf(lookups: Lookup[]) {
  const bodies = lookups.map((body) => JSON.stringify(body));
  let next = 0;
  return [
    {
      method: 'POST' as const,
      path: '/api/service/lookup',
      headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
      setupRequest: <T extends object>(request: T) => {
        const body = bodies[next++ % bodies.length];
        return { ...request, body };
      },
    },
  ];
}

interface Measured {
  perSecond: number;
  p50: number;
  p99: number;
}

/** One run of `duration` seconds; every answer must be a 200. */
async function run(origin: string, lookups: Lookup[], duration: number): Promise<Measured> {
  const result = await autocannon({
    url: origin,
    connections: CONNECTIONS,
    duration,
    requests: requestsOf(lookups),
  });
  const failures = result.non2xx + result.errors + result.timeouts;
  if (failures > 0)
    throw new Error(
      `${origin}: ${result.non2xx} non-2xx, ${result.errors} errors, ${result.timeouts} timeouts`,
    );
  // What was done: the 2xx answers completed, over the time the run took.
  return {
    perSecond: result['2xx'] / result.duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
  };
}

/**
 * Each side warmed up, then RUNS rounds in which every side runs once in turn (so a busy moment of
 * the shared machine falls on all of them alike); each side's best run counts.
 */
async function measure(sides: Array<[string, Lookup[]]>): Promise<Measured[]> {
  for (const [origin, lookups] of sides) await run(origin, lookups, WARM_UP_SECONDS);
  const best: Measured[] = [];
  for (let round = 0; round < RUNS; round++) {
    for (const [i, [origin, lookups]] of sides.entries()) {
      const result = await run(origin, lookups, SECONDS);
      if (best[i] === undefined || result.perSecond > (best[i] as Measured).perSecond)
        best[i] = result;
    }
  }
  return best;
}

async function answer(origin: string, body: Lookup): Promise<string> {
  const response = await fetch(`${origin}/api/service/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (response.status !== 200)
    throw new Error(`lookup ${JSON.stringify(body)} answered ${response.status}`);
  return response.text();
}

function createDatabase(): { url: string; drop(): void } | string {
  const name = `lookup_bench_${randomBytes(4).toString('hex')}`;
  try {
    execFileSync('psql', [DATABASE_URL, '-qc', `CREATE DATABASE ${name}`], { stdio: 'pipe' });
  } catch (error) {
    return `cannot create a database at ${DATABASE_URL} (${(error as Error).message.split('\n')[0]})`;
  }
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () =>
      execFileSync('psql', [DATABASE_URL, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], {
        stdio: 'pipe',
      }),
  };
}

const rate = (m: Measured) => `${Math.round(m.perSecond).toLocaleString('en')} req/s`;
const ratio = (a: Measured, b: Measured) => a.perSecond / b.perSecond;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

const skipped: string[] = [];
const missed: string[] = [];
const failed: string[] = [];
const hotBySize = new Map<string, number>();

console.log(
  `${CONNECTIONS} connections; each server warmed up ${WARM_UP_SECONDS} s, then ${RUNS} rounds of ${SECONDS} s runs taking turns, best run each; load average at start ${load()} (1/5/15 min, 2 cores shared)`,
);
for (const store of STORES) {
  for (const size of SIZES) {
    const label = `${store}, ${size.toLocaleString('en')} sessions`;
    let database: ReturnType<typeof createDatabase> | undefined;
    const env: Record<string, string> = { LOOKUP_STORE: store, LOOKUP_SESSIONS: String(size) };
    if (store === 'postgres') {
      database = createDatabase();
      if (typeof database === 'string') {
        skipped.push(`${label}: ${database}`);
        continue;
      }
      env.DATABASE_URL = database.url;
    }
    const servers: Server[] = [];
    try {
      const lookup = await start('lookup', env);
      servers.push(lookup);
      const hot = hotSet(size);
      const wide = wideSet(size);
      const answers = await Promise.all(hot.map((body) => answer(lookup.origin, body)));
      const average = Math.round(
        answers.reduce((n, a) => n + Buffer.byteLength(a), 0) / answers.length,
      );
      // The bytes the reference servers send: a hot answer of the average size.
      const payload = answers.reduce((best, a) =>
        Math.abs(a.length - average) < Math.abs(best.length - average) ? a : best,
      );
      for (const kind of ['bare', 'constant', 'hono'])
        servers.push(await start(kind, { PAYLOAD: payload }));
      const [, bareServer, constantServer, honoServer] = servers as [
        Server,
        Server,
        Server,
        Server,
      ];

      console.log(
        `\n${label} (ingested in ${(lookup.info.ingestSeconds as number).toFixed(1)} s at start-up; answers of ${average} bytes on average, the references send ${Buffer.byteLength(payload)})`,
      );
      const [bare, hotRun, wideRun, constant, hono] = (await measure([
        [bareServer.origin, hot],
        [lookup.origin, hot],
        [lookup.origin, wide],
        [constantServer.origin, hot],
        [honoServer.origin, hot],
      ])) as [Measured, Measured, Measured, Measured, Measured];
      lookup.child.send({ ingest: INGEST_PER_SECOND });
      const [underIngest] = (await measure([[lookup.origin, hot]])) as [Measured];
      lookup.child.send({ report: true });
      const report = await new Promise<{
        ingested: number;
        batches: number;
        maxStalenessMs: number;
      }>((resolve) => lookup.child.once('message', (m: { report: never }) => resolve(m.report)));

      const line = (name: string, m: Measured, r?: number) =>
        console.log(
          `  ${name.padEnd(44)} ${rate(m).padStart(12)}  p50 ${m.p50} ms, p99 ${m.p99} ms${r === undefined ? '' : `  ratio ${r.toFixed(2)}`}`,
        );
      line('bare node:http, same bytes', bare);
      line(`lookup, hot set (${hot.length} distinct)`, hotRun, ratio(hotRun, bare));
      line(
        `lookup, wide set (${wide.length.toLocaleString('en')} distinct)`,
        wideRun,
        ratio(wideRun, bare),
      );
      line('lookup shell over a constant store', constant, ratio(constant, bare));
      line('Hono on @hono/node-server (reference)', hono, ratio(hono, bare));
      line(
        `lookup, hot set, ingest of ${INGEST_PER_SECOND} events/s beside`,
        underIngest,
        ratio(underIngest, bare),
      );
      console.log(
        `    beside it: ${report.ingested} sessions ingested in ${report.batches} commits; largest staleness seen ${report.maxStalenessMs.toFixed(1)} ms (commit to the first answer showing it)`,
      );
      if (report.ingested === 0) failed.push(`${label}: nothing was ingested beside the load`);
      if (ratio(hotRun, bare) < TARGETS.hot)
        missed.push(`${label}: hot-set ratio ${ratio(hotRun, bare).toFixed(2)} < ${TARGETS.hot}`);
      if (ratio(constant, bare) < TARGETS.shell)
        missed.push(`${label}: shell ratio ${ratio(constant, bare).toFixed(2)} < ${TARGETS.shell}`);
      hotBySize.set(`${store} ${size}`, ratio(hotRun, bare));
    } finally {
      for (const server of servers) server.stop();
      if (database !== undefined && typeof database !== 'string') database.drop();
    }
  }
  const [small, large] = SIZES;
  const a = hotBySize.get(`${store} ${small}`);
  const b = hotBySize.get(`${store} ${large}`);
  if (a !== undefined && b !== undefined && large !== undefined && small !== undefined)
    console.log(
      `${store}: hot-set ratio at ${large.toLocaleString('en')} sessions / at ${small.toLocaleString('en')}: ${(b / a).toFixed(2)}`,
    );
}
console.log(`\nload average at the end ${load()}; ingest events/s: see ingest.bench.ts`);
if (missed.length > 0) console.log(`targets missed:\n  ${missed.join('\n  ')}`);
if (failed.length > 0) {
  console.error(`lookup: FAILED\n  ${failed.join('\n  ')}`);
  process.exit(1);
}
if (skipped.length > 0) {
  console.error(`lookup: INCOMPLETE, skipped:\n  ${skipped.join('\n  ')}`);
  process.exit(1);
}
