// Load: `service-lookup serve` as a child process on loopback, on the embedded store and on
// PostgreSQL, driven by autocannon at 100 connections with a mix of valid lookups, 404s, 401s
// and 400s. Fails (exit 1) on any 5xx, connection error or timeout, any answer with another
// status than its request expects, or server RSS after the run more than 20% above the RSS after
// the warm-up. Settings: LOAD_BENCH_SECONDS (default 12), LOAD_BENCH_STORES=embedded,postgres.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createTestDatabase, ServerProcess } from '@service/test-support';
import autocannon from 'autocannon';

const SECONDS = Number(process.env.LOAD_BENCH_SECONDS ?? 12);
// The server grows its heaps (V8, and PGlite's WebAssembly memory) to a plateau in the first
// 20-40 s of load: RSS is compared from after the warm-up.
const WARM_UP_SECONDS = 20;
const STORES = (process.env.LOAD_BENCH_STORES ?? 'embedded,postgres').split(',');
const CONNECTIONS = 100;
const MAX_RSS_GROWTH = 0.2;

const SAMPLES = join(import.meta.dirname, '../samples/events.ndjson');
const CLI = join(
  dirname(createRequire(import.meta.url).resolve('@service/lookup-core/package.json')),
  'dist/cli.js',
);
// The public sample keys of samples/README.md.
const DEFAULT_KEY = 'sk_live_sample_default_000000000000000000';
const NORTHWIND_KEY = 'sk_live_sample_northwind_0000000000000000';
const WRONG_KEY = 'sk_live_not_a_configured_key_000000000000';

interface Case {
  name: string;
  expect: number;
  headers: Record<string, string>;
  body: string;
}

const json = { 'content-type': 'application/json' };
const bearer = (key: string) => ({ ...json, authorization: `Bearer ${key}` });

/** One round of requests every connection cycles through: 3 x 200, 2 x 404, 2 x 401, 2 x 400. */
const CASES: Case[] = [
  {
    name: 'email with activity (Bearer)',
    expect: 200,
    headers: bearer(DEFAULT_KEY),
    body: '{"email":"Ann.Lee@acme.com","includeActivity":true}',
  },
  {
    name: 'domain (x-service-secret-key)',
    expect: 200,
    headers: { ...json, 'x-service-secret-key': DEFAULT_KEY },
    body: '{"domain":"https://www.globex.com/"}',
  },
  {
    name: 'other workspace, key in the body',
    expect: 200,
    headers: json,
    body: `{"domain":"umbrella.eu","secretKey":"${NORTHWIND_KEY}"}`,
  },
  {
    name: 'unknown domain',
    expect: 404,
    headers: bearer(DEFAULT_KEY),
    body: '{"domain":"nobody.example"}',
  },
  {
    name: "another workspace's company",
    expect: 404,
    headers: bearer(DEFAULT_KEY),
    body: '{"domain":"umbrella.eu"}',
  },
  { name: 'unknown key', expect: 401, headers: bearer(WRONG_KEY), body: '{"domain":"acme.com"}' },
  { name: 'no key', expect: 401, headers: json, body: '{"domain":"acme.com"}' },
  { name: 'malformed JSON', expect: 400, headers: bearer(DEFAULT_KEY), body: '{"domain":' },
  { name: 'neither email nor domain', expect: 400, headers: bearer(DEFAULT_KEY), body: '{}' },
];

/** Resident set size of a process in bytes, from /proc (Linux). */
function rssOf(pid: number): number {
  const kb = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^VmRSS:\s+(\d+) kB$/m)?.[1];
  if (kb === undefined) throw new Error(`no VmRSS for process ${pid}`);
  return Number(kb) * 1024;
}

/** `service-lookup serve` on a free loopback port with the sample events, once it listens. */
function serve(storeArgs: string[]) {
  return ServerProcess.start({
    command: process.execPath,
    args: [CLI, 'serve', '--port', '0', '--events', SAMPLES, '--key', DEFAULT_KEY, ...storeArgs],
    cwd: import.meta.dirname,
    // No DATABASE_URL: serve would open it instead of the embedded store the side measures.
    env: { SERVICE_SECRET_KEYS: `${NORTHWIND_KEY}=northwind`, DATABASE_URL: '' },
  });
}

interface Tally {
  unexpected: Map<string, number>;
}

function fire(origin: string, seconds: number, tally: Tally) {
  return autocannon({
    url: origin,
    connections: CONNECTIONS,
    duration: seconds,
    timeout: 10,
    requests: CASES.map((c) => ({
      method: 'POST' as const,
      path: '/api/service/lookup',
      headers: c.headers,
      body: c.body,
      onResponse: (status: number) => {
        if (status !== c.expect) {
          const label = `${c.name}: ${status} (expected ${c.expect})`;
          tally.unexpected.set(label, (tally.unexpected.get(label) ?? 0) + 1);
        }
      },
    })),
  });
}

const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

/** Runs the load against one store; returns the broken properties (empty when it held). */
async function loadOne(label: string, storeArgs: string[]): Promise<string[]> {
  const { server, baseUrl: origin } = await serve(storeArgs);
  const pid = server.pid ?? 0;
  try {
    await fire(origin, WARM_UP_SECONDS, { unexpected: new Map() });
    await sleep(500);
    const rssBefore = rssOf(pid);
    const tally: Tally = { unexpected: new Map() };
    const result = await fire(origin, SECONDS, tally);
    await sleep(500);
    const rssAfter = rssOf(pid);

    const byStatus = Object.entries(result.statusCodeStats)
      .map(([status, { count }]) => `${status}: ${count}`)
      .join(', ');
    const fivexx = result['5xx'];
    const growth = (rssAfter - rssBefore) / rssBefore;
    console.log(
      `${label}: ${result.requests.total} requests in ${result.duration.toFixed(1)} s at ${CONNECTIONS} connections, ` +
        `${Math.round(result.requests.average)} req/s, latency p50 ${result.latency.p50} ms, p99 ${result.latency.p99} ms, max ${result.latency.max} ms`,
    );
    console.log(`  status codes: ${byStatus}`);
    console.log(
      `  5xx: ${fivexx}, connection errors: ${result.errors}, timeouts: ${result.timeouts}, unexpected statuses: ${[...tally.unexpected.values()].reduce((a, b) => a + b, 0)}`,
    );
    console.log(
      `  server RSS after warm-up ${mb(rssBefore)}, after the run ${mb(rssAfter)} (${(growth * 100).toFixed(1)}%)`,
    );

    const broken: string[] = [];
    if (fivexx > 0) broken.push(`${label}: ${fivexx} responses with status 5xx`);
    if (result.errors > 0 || result.timeouts > 0)
      broken.push(`${label}: ${result.errors} connection errors, ${result.timeouts} timeouts`);
    for (const [what, count] of tally.unexpected) broken.push(`${label}: ${count} x ${what}`);
    for (const status of ['200', '400', '401', '404'])
      if (!result.statusCodeStats[status as '200'])
        broken.push(`${label}: no ${status} answers, the mix did not run`);
    if (growth > MAX_RSS_GROWTH)
      broken.push(
        `${label}: RSS grew ${(growth * 100).toFixed(1)}% (limit ${MAX_RSS_GROWTH * 100}%)`,
      );
    const code = await server.stop();
    if (code !== 0) broken.push(`${label}: serve exited with ${code} on SIGTERM`);
    return broken;
  } finally {
    server.kill();
  }
}

const broken: string[] = [];
const skipped: string[] = [];
console.log(
  `mix per connection: ${CASES.map((c) => `${c.name} -> ${c.expect}`).join('; ')}\n` +
    `${WARM_UP_SECONDS} s warm-up, then ${SECONDS} s measured`,
);
for (const store of STORES) {
  if (store === 'embedded') {
    broken.push(...(await loadOne('embedded (PGlite, in memory)', [])));
  } else if (store === 'postgres') {
    const database = await createTestDatabase('load_bench');
    if (database.missing !== undefined) {
      skipped.push(`postgres: ${database.missing}`);
      continue;
    }
    try {
      broken.push(...(await loadOne('postgres', ['--database-url', database.url])));
    } finally {
      await database.drop();
    }
  }
}
if (broken.length > 0) {
  console.error(`load: FAILED\n  ${broken.join('\n  ')}`);
  process.exit(1);
}
// A part that did not run is never reported as held.
if (skipped.length > 0) {
  console.error(`load: INCOMPLETE, skipped:\n  ${skipped.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `load: held (no 5xx, no connection errors or timeouts, RSS within ${MAX_RSS_GROWTH * 100}%)`,
);
