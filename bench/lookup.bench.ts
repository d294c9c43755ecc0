// Lookup throughput over HTTP on both stores, as ratios to servers measured beside it in the same
// run: a bare node:http server answering each request body with the very bytes the lookup answered
// it with (so both sides send the same bytes), the lookup's shell over a constant store, and a
// minimal Hono app on @hono/node-server (those two send the hot set's average answer). Every server
// runs in a child process of its own (lookup-servers.ts); autocannon runs here. After a warm-up,
// every side runs once per round, three rounds; a side prints its median run, and a ratio is the
// median of its per-round ratios (sides of one round run back to back, so a busy moment of the
// shared machine weighs on both). Throughput is computed from the requests autocannon completed.
// Before the timed runs every wide-set lookup is asked once: that first pass reads the database
// (its rate is printed) and fills the cache the runs then measure. The six headline figures, per
// store: the hot set, the wide set held for LOOKUP_BENCH_WIDE_SECONDS with the cache on, and the
// wide set with the cache off (a second server over the same data, every lookup read from the store).
// A second wide figure, the wide set as a user ran it: every company by domain and 8,000 contacts by
// email with activity, asked of a fresh server (cold cache) for LOOKUP_BENCH_WIDE_SECONDS, compared
// with the bare server sending the hot set's answers (runs of SECONDS before and after it, averaged).
// RSS (VmRSS of the served process, /proc/<pid>/status): idle 3 s after it listens, ingested, and the
// largest seen under the hot and wide sets' load. First of all, the memory a user's first server
// takes: `service-lookup serve --events samples/events.ndjson` (the built command, 14 events), RSS
// 3 s after it listens, three starts per store (target: <= 200 MB on the embedded store).
//   LOOKUP_BENCH_SESSIONS=100000,1000000 (default)   LOOKUP_BENCH_STORES=embedded,postgres
//   LOOKUP_BENCH_SECONDS=5 per run                     LOOKUP_BENCH_CONNECTIONS=50
//   LOOKUP_BENCH_WIDE_SECONDS=20 per wide-set run with the cache on
// Ingest events/s at start-up is printed here; ingest.bench.ts measures ingest on its own.
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, type TestDatabase } from '@service/test-support';
import autocannon from 'autocannon';
import { BENCH_KEY, hotSet, type Lookup, userWideSet, wideSet } from './lookup-data.ts';

const SIZES = (process.env.LOOKUP_BENCH_SESSIONS ?? '100000,1000000').split(',').map(Number);
const STORES = (process.env.LOOKUP_BENCH_STORES ?? 'embedded,postgres').split(',');
const SECONDS = Number(process.env.LOOKUP_BENCH_SECONDS ?? 5);
const WIDE_SECONDS = Number(process.env.LOOKUP_BENCH_WIDE_SECONDS ?? 20);
const CONNECTIONS = Number(process.env.LOOKUP_BENCH_CONNECTIONS ?? 50);
const WARM_UP_SECONDS = 2;
const RUNS = 3;
const INGEST_PER_SECOND = 100;
/** Lookups in flight during the wide set's first pass. */
const FIRST_PASS_IN_FLIGHT = 16;
const TARGETS = {
  sampleIdleMb: 200,
  hot: 0.9,
  wide: 0.6,
  cacheOff: { postgres: 0.25, embedded: 0.12 } as Record<string, number>,
  shell: 0.95,
};

/** The resident memory of process `pid` in MB (VmRSS), or NaN where /proc cannot tell. */
function rssMb(pid: number | undefined): number {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return Number(status.match(/^VmRSS:\s+(\d+) kB/m)?.[1]) / 1024;
  } catch {
    return Number.NaN;
  }
}

/** Reads `pid`'s RSS every 250 ms while `work` runs: the work's result and the largest RSS seen. */
async function withPeakRss<T>(pid: number | undefined, work: Promise<T>) {
  let peak = rssMb(pid);
  const timer = setInterval(() => {
    peak = Math.max(peak, rssMb(pid));
  }, 250);
  try {
    return { result: await work, peakMb: Math.max(peak, rssMb(pid)) };
  } finally {
    clearInterval(timer);
  }
}

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

/** A side's runs, one per round. */
type Runs = Measured[];

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
};

/**
 * Each side warmed up, then RUNS rounds in which every side runs once in turn, so a busy moment
 * of the shared machine falls on the sides of one round alike.
 */
async function measure(sides: Array<[string, Lookup[]]>, seconds = SECONDS): Promise<Runs[]> {
  for (const [origin, lookups] of sides) await run(origin, lookups, WARM_UP_SECONDS);
  const runs: Runs[] = sides.map(() => []);
  for (let round = 0; round < RUNS; round++) {
    for (const [i, [origin, lookups]] of sides.entries())
      runs[i]?.push(await run(origin, lookups, seconds));
  }
  return runs;
}

/** The run of median throughput: what is printed for a side. */
const typical = (runs: Runs) =>
  [...runs].sort((a, b) => a.perSecond - b.perSecond)[runs.length >> 1] as Measured;

/** `a`'s throughput over `b`'s, round by round (runs taken side by side), the median of those. */
const ratio = (a: Runs, b: Runs) =>
  median(a.map((run, round) => run.perSecond / (b[round] as Measured).perSecond));

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

/** Writes `[[request body, answer], ...]` for a replay server; answers must be compact JSON. */
function answersFile(dir: string, name: string, lookups: Lookup[], answers: string[]) {
  const loose = answers.filter((a) => a !== JSON.stringify(JSON.parse(a))).length;
  if (loose > 0) failed.push(`${name}: ${loose} answers are not compact JSON`);
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(lookups.map((body, i) => [JSON.stringify(body), answers[i]])));
  return path;
}

/** Asks every lookup once, `inFlight` at a time: the answers, and how many a second were answered. */
async function askAll(origin: string, lookups: Lookup[], inFlight: number) {
  const answers: string[] = new Array(lookups.length);
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    for (let i = next++; i < lookups.length; i = next++)
      answers[i] = await answer(origin, lookups[i] as Lookup);
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return { answers, perSecond: lookups.length / ((performance.now() - started) / 1000) };
}

/**
 * The answers' size in bytes on average and in all, and what the references send: the largest
 * answer no larger than the average, padded with spaces (still JSON) to exactly the average.
 */
function averageOf(answers: string[]) {
  const sizes = answers.map((a) => Buffer.byteLength(a));
  const total = sizes.reduce((n, size) => n + size, 0);
  const average = Math.round(total / answers.length);
  // The smallest answer is never above the average, so one always fits.
  let base = -1;
  for (const [i, size] of sizes.entries())
    if (size <= average && (base === -1 || size > (sizes[base] as number))) base = i;
  const reference = `${answers[base]}${' '.repeat(average - (sizes[base] as number))}`;
  return { average, total, reference };
}

/**
 * The user's wide set from a cold cache: a fresh server over the same data (PostgreSQL's database
 * as it is, the embedded store ingested anew) runs it once for WIDE_SECONDS, between two runs of the
 * bare server on the hot set; the ratio is to the average of those two.
 */
async function coldRun(
  env: Record<string, string>,
  store: string,
  lookups: Lookup[],
  bareOrigin: string,
  hot: Lookup[],
) {
  const fresh = await start('lookup', {
    ...env,
    ...(store === 'postgres' ? { LOOKUP_SESSIONS: '0' } : {}),
  });
  try {
    const before = await run(bareOrigin, hot, SECONDS);
    const measured = await run(fresh.origin, lookups, WIDE_SECONDS);
    const after = await run(bareOrigin, hot, SECONDS);
    const ratio = measured.perSecond / ((before.perSecond + after.perSecond) / 2);
    return { run: measured, bare: [before, after], ratio };
  } finally {
    fresh.stop();
  }
}

const rate = (m: Measured) => `${Math.round(m.perSecond).toLocaleString('en')} req/s`;
const load = () =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' / ');

const skipped: string[] = [];
const missed: string[] = [];
const failed: string[] = [];
/** Per store and size: the headline ratios, and the first pass compared between the two sizes. */
const bySize = new Map<
  string,
  {
    hot: number;
    wide: number;
    coldWide: number;
    cacheOff: number;
    shell: number;
    idleMb: number;
    loadMb: number;
    firstPass: number;
  }
>();
const answersDir = mkdtempSync(join(tmpdir(), 'lookup-bench-'));

const SERVE = join(import.meta.dirname, '../packages/lookup-core/dist/bin.js');
const SAMPLE = join(import.meta.dirname, '../samples/events.ndjson');

/** RSS of `service-lookup serve --events SAMPLE ...flags` 3 s after it says it listens. */
async function sampleServeRss(flags: string[]): Promise<number> {
  const child = spawn(
    process.execPath,
    [SERVE, 'serve', '--events', SAMPLE, '--port', '0', ...flags],
    {
      env: { ...process.env, SERVICE_SECRET_KEYS: BENCH_KEY },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  try {
    let out = '';
    await new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk;
        if (out.includes('listening on')) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${out}`)));
    });
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    return rssMb(child.pid);
  } finally {
    child.kill();
    await once(child, 'exit');
  }
}

for (const store of STORES) {
  const database =
    store === 'postgres' ? await createTestDatabase('lookup_bench_sample') : undefined;
  if (database?.missing !== undefined) {
    skipped.push(`${store}, the sample: ${database.missing}`);
    continue;
  }
  try {
    const flags = database === undefined ? [] : ['--database-url', database.url];
    const idle: number[] = [];
    for (let i = 0; i < RUNS; i++) idle.push(await sampleServeRss(flags));
    console.log(
      `${store}: service-lookup serve --events samples/events.ndjson, RSS 3 s after listening: ${idle.map((mb) => `${mb.toFixed(0)} MB`).join(', ')} (median ${median(idle).toFixed(0)} MB)`,
    );
    if (store === 'embedded' && median(idle) > TARGETS.sampleIdleMb)
      missed.push(
        `embedded, the sample: idle RSS ${median(idle).toFixed(0)} MB > ${TARGETS.sampleIdleMb} MB`,
      );
  } finally {
    await database?.drop();
  }
}

console.log(
  `${CONNECTIONS} connections; each server warmed up ${WARM_UP_SECONDS} s, then ${RUNS} rounds of ${SECONDS} s runs taking turns; median run, median of per-round ratios; load average at start ${load()} (1/5/15 min, 2 cores shared)`,
);
for (const store of STORES) {
  for (const size of SIZES) {
    const label = `${store}, ${size.toLocaleString('en')} sessions`;
    let database: TestDatabase | undefined;
    const env: Record<string, string> = { LOOKUP_STORE: store, LOOKUP_SESSIONS: String(size) };
    if (store === 'postgres') {
      database = await createTestDatabase('lookup_bench');
      if (database.missing !== undefined) {
        skipped.push(`${label}: ${database.missing}`);
        continue;
      }
      env.DATABASE_URL = database.url;
    }
    const servers: Server[] = [];
    try {
      const lookup = await start('lookup', env);
      servers.push(lookup);
      // Idle: 3 s after it listens, ingested, before any lookup (the ingest's garbage settled).
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      const idleMb = rssMb(lookup.child.pid);
      const hot = hotSet(size);
      const wide = wideSet(size);
      const hotAnswers = await askAll(lookup.origin, hot, FIRST_PASS_IN_FLIGHT);
      const hotAverage = averageOf(hotAnswers.answers);
      const firstPass = await askAll(lookup.origin, wide, FIRST_PASS_IN_FLIGHT);
      const wideAverage = averageOf(firstPass.answers);
      const replays = [
        answersFile(answersDir, `${store}-${size}-hot`, hot, hotAnswers.answers),
        answersFile(answersDir, `${store}-${size}-wide`, wide, firstPass.answers),
      ];
      for (const file of replays) servers.push(await start('replay', { ANSWERS_FILE: file }));
      for (const kind of ['constant', 'hono'])
        servers.push(await start(kind, { PAYLOAD: hotAverage.reference }));
      // Over the same data: PostgreSQL's database as it is, the embedded store ingested anew.
      const uncached = await start('lookup', {
        ...env,
        LOOKUP_CACHE: 'off',
        ...(store === 'postgres' ? { LOOKUP_SESSIONS: '0' } : {}),
      });
      servers.push(uncached);
      const [, bareServer, bareWideServer, constantServer, honoServer] = servers as [
        Server,
        Server,
        Server,
        Server,
        Server,
      ];

      const ingestRate = size / (lookup.info.ingestSeconds as number);
      console.log(
        `\n${label} (ingested at start-up in ${(lookup.info.ingestSeconds as number).toFixed(1)} s, ${Math.round(ingestRate).toLocaleString('en')} events/s)`,
      );
      console.log(
        `  hot set: answers of ${hotAverage.average} bytes on average; wide set: ${wideAverage.average} bytes on average, ${(wideAverage.total / 2 ** 20).toFixed(1)} MiB in all; the constant and Hono references send ${Buffer.byteLength(hotAverage.reference)}`,
      );
      console.log(
        `  wide set, first pass (reads the database, fills the cache; ${FIRST_PASS_IN_FLIGHT} in flight): ${Math.round(firstPass.perSecond).toLocaleString('en')} lookups/s`,
      );
      const hotMeasured = await withPeakRss(
        lookup.child.pid,
        measure([
          [bareServer.origin, hot],
          [lookup.origin, hot],
          [constantServer.origin, hot],
          [honoServer.origin, hot],
        ]),
      );
      const [bare, hotRun, constant, hono] = hotMeasured.result as [Runs, Runs, Runs, Runs];
      const wideMeasured = await withPeakRss(
        lookup.child.pid,
        measure(
          [
            [bareWideServer.origin, wide],
            [lookup.origin, wide],
          ],
          WIDE_SECONDS,
        ),
      );
      const [bareWide, wideRun] = wideMeasured.result as [Runs, Runs];
      const loadMb = Math.max(hotMeasured.peakMb, wideMeasured.peakMb);
      const [bareOff, offRun] = (await measure([
        [bareWideServer.origin, wide],
        [uncached.origin, wide],
      ])) as [Runs, Runs];
      const userWide = userWideSet(size);
      const cold = await coldRun(env, store, userWide, bareServer.origin, hot);
      lookup.child.send({ ingest: INGEST_PER_SECOND });
      const [bareBeside, underIngest] = (await measure([
        [bareServer.origin, hot],
        [lookup.origin, hot],
      ])) as [Runs, Runs];
      lookup.child.send({ report: true });
      const report = await new Promise<{
        ingested: number;
        batches: number;
        maxStalenessMs: number;
      }>((resolve) => lookup.child.once('message', (m: { report: never }) => resolve(m.report)));

      const line = (name: string, runs: Runs, r?: number) => {
        const m = typical(runs);
        console.log(
          `  ${name.padEnd(50)} ${rate(m).padStart(12)}  p50 ${m.p50} ms, p99 ${m.p99} ms${r === undefined ? '' : `  ratio ${r.toFixed(2)}`}`,
        );
      };
      line('bare node:http, the same answers as the hot set', bare);
      line(`lookup, hot set (${hot.length} distinct)`, hotRun, ratio(hotRun, bare));
      line(`bare node:http, the same answers as the wide set, ${WIDE_SECONDS} s`, bareWide);
      line(
        `lookup, wide set (${wide.length.toLocaleString('en')} distinct), ${WIDE_SECONDS} s`,
        wideRun,
        ratio(wideRun, bareWide),
      );
      line('bare node:http, the same answers as the wide set', bareOff);
      line('lookup, wide set, cache off', offRun, ratio(offRun, bareOff));
      line(
        `lookup, user's wide set (${userWide.length.toLocaleString('en')}: companies, contacts with activity), cold cache, ${WIDE_SECONDS} s`,
        [cold.run],
        cold.ratio,
      );
      console.log(
        `    the bare server's hot-set runs beside it: ${cold.bare.map((m) => rate(m)).join(' before, ')} after`,
      );
      line('lookup shell over a constant store', constant, ratio(constant, bare));
      line('Hono on @hono/node-server (reference)', hono, ratio(hono, bare));
      line('bare node:http, a hot answer, while ingesting', bareBeside);
      line(
        `lookup, hot set, ingest of ${INGEST_PER_SECOND} events/s beside`,
        underIngest,
        ratio(underIngest, bareBeside),
      );
      console.log(
        `    beside it: ${report.ingested} sessions ingested in ${report.batches} commits; largest staleness seen ${report.maxStalenessMs.toFixed(1)} ms (commit to the first answer showing it)`,
      );
      console.log(
        `  RSS of the served process: ${idleMb.toFixed(0)} MB idle (ingested, 3 s after listening), ${loadMb.toFixed(0)} MB at most under the hot and wide sets' load`,
      );
      if (report.ingested === 0) failed.push(`${label}: nothing was ingested beside the load`);
      const headline = {
        hot: ratio(hotRun, bare),
        wide: ratio(wideRun, bareWide),
        coldWide: cold.ratio,
        cacheOff: ratio(offRun, bareOff),
        shell: ratio(constant, bare),
        idleMb,
        loadMb,
      };
      const cacheOffTarget = TARGETS.cacheOff[store] ?? 0;
      if (headline.hot < TARGETS.hot)
        missed.push(`${label}: hot-set ratio ${headline.hot.toFixed(2)} < ${TARGETS.hot}`);
      if (headline.wide < TARGETS.wide)
        missed.push(`${label}: wide-set ratio ${headline.wide.toFixed(2)} < ${TARGETS.wide}`);
      if (headline.coldWide < TARGETS.wide)
        missed.push(
          `${label}: user's cold wide-set ratio ${headline.coldWide.toFixed(2)} < ${TARGETS.wide}`,
        );
      if (headline.cacheOff < cacheOffTarget)
        missed.push(
          `${label}: cache-off ratio ${headline.cacheOff.toFixed(2)} < ${cacheOffTarget}`,
        );
      if (ratio(constant, bare) < TARGETS.shell)
        missed.push(`${label}: shell ratio ${ratio(constant, bare).toFixed(2)} < ${TARGETS.shell}`);
      bySize.set(`${store} ${size}`, { ...headline, firstPass: firstPass.perSecond });
    } finally {
      for (const server of servers) server.stop();
      if (database?.missing === undefined) await database?.drop();
    }
  }
  const [small, large] = SIZES;
  const a = bySize.get(`${store} ${small}`);
  const b = bySize.get(`${store} ${large}`);
  if (a !== undefined && b !== undefined && large !== undefined && small !== undefined)
    console.log(
      `${store}, at ${large.toLocaleString('en')} sessions / at ${small.toLocaleString('en')}: hot-set ratio ${(b.hot / a.hot).toFixed(2)}, wide-set ratio ${(b.wide / a.wide).toFixed(2)}, first-pass lookups/s ${(b.firstPass / a.firstPass).toFixed(2)}`,
    );
}
rmSync(answersDir, { recursive: true, force: true });
console.log(
  `\nratios to the bare server (targets: shell >= ${TARGETS.shell}, hot >= ${TARGETS.hot}, wide (warm and cold) >= ${TARGETS.wide}, cache off >= 0.25 postgres / 0.12 embedded); RSS of the served process`,
);
for (const [key, figures] of bySize)
  console.log(
    `  ${key.padEnd(20)} shell ${figures.shell.toFixed(2)}  hot ${figures.hot.toFixed(2)}  wide ${figures.wide.toFixed(2)}  user's wide, cold ${figures.coldWide.toFixed(2)}  cache off ${figures.cacheOff.toFixed(2)}  RSS ${figures.idleMb.toFixed(0)} MB idle, ${figures.loadMb.toFixed(0)} MB under load`,
  );
console.log(`\nload average at the end ${load()}`);
if (missed.length > 0) console.log(`targets missed:\n  ${missed.join('\n  ')}`);
if (failed.length > 0) {
  console.error(`lookup: FAILED\n  ${failed.join('\n  ')}`);
  process.exit(1);
}
if (skipped.length > 0) {
  console.error(`lookup: INCOMPLETE, skipped:\n  ${skipped.join('\n  ')}`);
  process.exit(1);
}
