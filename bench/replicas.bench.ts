// Replicas: a PostgreSQL primary and a streaming hot standby built for the run (initdb,
// pg_basebackup -R, on free loopback ports), the sample events ingested, and two
// `service-lookup serve` processes with the cache on: one on the primary, one on the standby.
// Staleness: under a steady ingest on the primary (one event for a new domain every 1/RATE s,
// through the public store API), each domain is asked of the standby-backed server once before its
// commit (a 404 it keeps), then polled every 2 ms from the moment the commit returned until the
// answer shows it; p50/p99/max of commit-to-first-answer; the same against the primary-backed
// server (woken by LISTEN) for comparison. Lookup rate: autocannon on each server
// with the same domain lookups, after a warm-up; the sides take turns for three rounds and each
// side's best run counts; the ratio is standby / primary. Checks: every change shows (none
// missing after 10 s), every lookup answered 200.
//   REPLICA_BENCH_CHANGES=200 (default)  REPLICA_BENCH_RATE=20 per second  REPLICA_BENCH_SECONDS=5
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { openPostgresStore } from '@service/lookup-core';
import { ServerProcess } from '@service/test-support';
import {
  type Cluster,
  caughtUp,
  clusterMissing,
  startPrimary,
  startStandby,
} from '@service/test-support/cluster';
import autocannon from 'autocannon';

const CHANGES = Number(process.env.REPLICA_BENCH_CHANGES ?? 200);
const RATE = Number(process.env.REPLICA_BENCH_RATE ?? 20);
const SECONDS = Number(process.env.REPLICA_BENCH_SECONDS ?? 5);
const ROUNDS = 3;
const CONNECTIONS = 50;
const MISSING_AFTER_MS = 10_000;

const SAMPLES = join(import.meta.dirname, '../samples/events.ndjson');
const CLI = join(
  dirname(createRequire(import.meta.url).resolve('@service/lookup-core/package.json')),
  'dist/cli.js',
);
const KEY = 'sk_live_sample_default_000000000000000000';

if (clusterMissing !== undefined) {
  console.error(`replicas: FAILED, cannot build clusters: ${clusterMissing}`);
  process.exit(1);
}

/** `service-lookup serve` on `url`, once it listens. */
const serve = (url: string) =>
  ServerProcess.start({
    command: process.execPath,
    args: [CLI, 'serve', '--port', '0', '--key', KEY, '--database-url', url],
    cwd: import.meta.dirname,
    env: { SERVICE_SECRET_KEYS: '', DATABASE_URL: '' },
  });

async function ingestSamples(url: string): Promise<void> {
  const child = spawn(process.execPath, [CLI, 'ingest', SAMPLES, '--database-url', url], {
    stdio: 'inherit',
    env: { ...process.env, DATABASE_URL: '' },
  });
  const code = await new Promise((resolve) => child.on('close', resolve));
  if (code !== 0) throw new Error(`ingest of the samples exited with ${code}`);
}

const ask = (origin: string, domain: string) =>
  fetch(`${origin}/api/service/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ domain }),
  }).then(async (r) => {
    await r.arrayBuffer();
    return r.status;
  });

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? Number.NaN;

/** Commit-to-first-answer of each change, in ms; `missing` counts changes never seen. */
async function staleness(primaryUrl: string, origin: string, prefix: string) {
  const writer = await openPostgresStore({ connectionString: primaryUrl, maxConnections: 2 });
  const delays: number[] = [];
  let missing = 0;
  const started = performance.now();
  const waits: Array<Promise<void>> = [];
  try {
    for (let i = 0; i < CHANGES; i++) {
      // Steady: change i is committed at (or after) i / RATE seconds from the start.
      const due = started + (i * 1000) / RATE;
      if (due > performance.now()) await sleep(due - performance.now());
      const domain = `${prefix}-${i}.example`;
      if ((await ask(origin, domain)) !== 404) throw new Error(`${domain} answered before ingest`);
      const result = await writer.ingest([
        {
          type: 'session',
          id: `${prefix}-${i}`,
          company: { domain },
          visitor_id: `v-${i}`,
          start_time: '2025-05-01T10:00:00Z',
          end_time: '2025-05-01T10:05:00Z',
          active_time: 60,
          pages_visited: ['/'],
          signals: [],
          referrer: '',
          intent: 'low',
        },
      ]);
      const committed = performance.now();
      if (result.ingested !== 1)
        throw new Error(`change ${i} not ingested: ${JSON.stringify(result.rejected)}`);
      waits.push(
        (async () => {
          while ((await ask(origin, domain)) !== 200) {
            if (performance.now() - committed > MISSING_AFTER_MS) {
              missing++;
              return;
            }
            await sleep(2);
          }
          delays.push(performance.now() - committed);
        })(),
      );
    }
    await Promise.all(waits);
  } finally {
    await writer.close();
  }
  return { delays: delays.sort((a, b) => a - b), missing };
}

/** Lookups per second `origin` answered with the sample domains, and the non-200 answers. */
async function rate(origin: string, seconds: number) {
  const domains = ['acme.com', 'globex.com', 'initech.io'];
  let wrong = 0;
  const result = await autocannon({
    url: origin,
    connections: CONNECTIONS,
    duration: seconds,
    requests: domains.map((domain) => ({
      method: 'POST' as const,
      path: '/api/service/lookup',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ domain }),
      onResponse: (status: number) => {
        if (status !== 200) wrong++;
      },
    })),
  });
  return { perSecond: result.requests.total / result.duration, wrong, errors: result.errors };
}

const broken: string[] = [];
let primary: Cluster | undefined;
let standby: Cluster | undefined;
const servers: Array<Awaited<ReturnType<typeof serve>>['server']> = [];
try {
  primary = await startPrimary();
  standby = await startStandby(primary);
  await ingestSamples(primary.url());
  await caughtUp(primary, standby);
  const onPrimary = await serve(primary.url());
  const onStandby = await serve(standby.url());
  servers.push(onPrimary.server, onStandby.server);

  const f = (ms: number) => `${ms.toFixed(1)} ms`;
  for (const [side, origin, prefix] of [
    ['standby-backed', onStandby.baseUrl, 'stale'],
    ['primary-backed (woken by LISTEN)', onPrimary.baseUrl, 'fresh'],
  ] as const) {
    const { delays, missing } = await staleness(primary.url(), origin, prefix);
    console.log(
      `staleness of the ${side} server, ${delays.length} changes at ${RATE}/s on the primary: ` +
        `p50 ${f(percentile(delays, 0.5))}, p99 ${f(percentile(delays, 0.99))}, max ${f(delays.at(-1) ?? Number.NaN)}`,
    );
    if (missing > 0) broken.push(`${side}: ${missing} changes never showed`);
    if (delays.length !== CHANGES)
      broken.push(`${side}: ${delays.length} of ${CHANGES} changes measured`);
  }

  await rate(onPrimary.baseUrl, 1);
  await rate(onStandby.baseUrl, 1);
  const best = { primary: 0, standby: 0 };
  for (let round = 0; round < ROUNDS; round++) {
    for (const [side, origin] of [
      ['primary', onPrimary.baseUrl],
      ['standby', onStandby.baseUrl],
    ] as const) {
      const run = await rate(origin, SECONDS);
      if (run.wrong > 0 || run.errors > 0)
        broken.push(`${side}: ${run.wrong} answers other than 200, ${run.errors} errors`);
      best[side] = Math.max(best[side], run.perSecond);
    }
  }
  console.log(
    `lookups/s (best of ${ROUNDS} runs of ${SECONDS} s, ${CONNECTIONS} connections, cache on): ` +
      `primary-backed ${Math.round(best.primary)}, standby-backed ${Math.round(best.standby)}, ` +
      `ratio standby/primary ${(best.standby / best.primary).toFixed(2)}`,
  );
} catch (error) {
  broken.push(`could not run: ${(error as Error).message}`);
} finally {
  for (const server of servers) await server.stop();
  await standby?.remove();
  await primary?.remove();
}
if (broken.length > 0) {
  console.error(`replicas: FAILED\n  ${broken.join('\n  ')}`);
  process.exit(1);
}
