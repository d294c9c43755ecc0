// Lookup latency on both stores at 1,000 and 1,000,000 ingested sessions, ingest rate, and the
// HTTP throughput of the lookup next to a bare node:http JSON response of the same size.
// Sizes: LOOKUP_BENCH_SESSIONS=1000,1000000 (default); stores: LOOKUP_BENCH_STORES=embedded,postgres.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  createLookupHandler,
  type LookupStore,
  openEmbeddedStore,
  openPostgresStore,
} from '@service/lookup-core';
import { toNodeListener } from '@service/lookup-core/node';
import autocannon from 'autocannon';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const KEY = 'sk_live_bench_0123456789abcdefghijklmn';
const SIZES = (process.env.LOOKUP_BENCH_SESSIONS ?? '1000,1000000').split(',').map(Number);
const STORES = (process.env.LOOKUP_BENCH_STORES ?? 'embedded,postgres').split(',');
const LOOKUPS = 2_000;
const CONTACTS_PER_COMPANY = 20;

/** The contact of the i-th session (even sessions are identified). */
const emailOf = (i: number, companies: number) =>
  `person${(i >> 1) % CONTACTS_PER_COMPANY}@company${i % companies}.com`;

/** How many companies `total` sessions are spread over (10 per company at 1k, 1,000 per company at 1M). */
const companiesFor = (total: number) => Math.max(10, Math.min(1_000, total / 10));

/** Sessions spread over `companiesFor(total)` companies, half identified. */
function* sessions(total: number) {
  const companies = companiesFor(total);
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < total; i++) {
    const c = i % companies;
    const start = base + i * 1_000;
    yield {
      type: 'session',
      id: `s${i}`,
      company: { domain: `company${c}.com`, name: `Company ${c}`, industry: 'Software' },
      contact:
        i % 2 === 0
          ? { email: emailOf(i, companies), name: 'A Person', title: 'Engineer' }
          : undefined,
      visitor_id: `v${i % 50_021}`,
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + 240_000).toISOString(),
      active_time: 180,
      pages_visited: ['/', '/pricing', '/docs'],
      signals: i % 7 === 0 ? ['Pricing page'] : [],
      referrer: 'https://www.google.com/',
      intent: (['low', 'medium', 'high', 'very_high'] as const)[i % 4],
      city: 'Austin',
      state: 'Texas',
      country: 'United States',
    };
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

const ms = (n: number) => `${n.toFixed(2)} ms`;

async function latency(handler: (r: Request) => Promise<Response>, body: (i: number) => object) {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < LOOKUPS; i++) {
    const request = new Request('http://bench/api/service/lookup', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body(i)),
    });
    const t = performance.now();
    const response = await handler(request);
    bytes += (await response.arrayBuffer()).byteLength;
    times.push(performance.now() - t);
    if (response.status !== 200) throw new Error(`lookup answered ${response.status}`);
  }
  times.sort((a, b) => a - b);
  return `p50 ${ms(percentile(times, 50))}, p99 ${ms(percentile(times, 99))} (answers of ${Math.round(bytes / LOOKUPS)} bytes on average)`;
}

interface Opened {
  store: LookupStore;
  drop(): Promise<void>;
}

async function open(kind: string): Promise<Opened | null> {
  if (kind === 'embedded') return { store: await openEmbeddedStore(), drop: async () => {} };
  const name = `lookup_bench_${randomBytes(4).toString('hex')}`;
  try {
    execFileSync('psql', [DATABASE_URL, '-qc', `CREATE DATABASE ${name}`], { stdio: 'pipe' });
  } catch (error) {
    console.log(
      `postgres: skipped, cannot create a database at ${DATABASE_URL} (${(error as Error).message.split('\n')[0]})`,
    );
    return null;
  }
  const url = new URL(DATABASE_URL);
  url.pathname = `/${name}`;
  return {
    store: await openPostgresStore({ connectionString: url.toString() }),
    drop: async () => {
      execFileSync('psql', [DATABASE_URL, '-qc', `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`], {
        stdio: 'pipe',
      });
    },
  };
}

function listen(listener: RequestListener): Promise<{ url: string; server: Server }> {
  const server = createServer(listener);
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server }),
    ),
  );
}

async function throughput(url: string, body: string) {
  const result = await autocannon({
    url: `${url}/api/service/lookup`,
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body,
    connections: 10,
    duration: 5,
  });
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`${result.non2xx} non-2xx, ${result.errors} errors`);
  return result;
}

/** The lookup over HTTP against a bare node:http server sending the same JSON bytes. */
async function compareHttp(handler: (r: Request) => Promise<Response>, label: string) {
  const body = JSON.stringify({ domain: 'company0.com' });
  const sample = await handler(
    new Request('http://bench/api/service/lookup', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body,
    }),
  );
  const payload = await sample.text();
  const lookup = await listen(toNodeListener(handler));
  const bare = await listen((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      res.end(payload);
    });
  });
  try {
    const ours = await throughput(lookup.url, body);
    const baseline = await throughput(bare.url, body);
    console.log(
      `  HTTP (${label}, ${payload.length}-byte answer, 10 connections, 5 s): lookup ${Math.round(ours.requests.average)} req/s ` +
        `(p99 ${ours.latency.p99} ms), bare node:http ${Math.round(baseline.requests.average)} req/s (p99 ${baseline.latency.p99} ms), ` +
        `ratio ${(ours.requests.average / baseline.requests.average).toFixed(3)}`,
    );
  } finally {
    lookup.server.close();
    bare.server.close();
  }
}

for (const kind of STORES) {
  for (const size of SIZES) {
    const opened = await open(kind);
    if (opened === null) break;
    const { store } = opened;
    try {
      const started = performance.now();
      const counts = await store.ingest(sessions(size), { batchSize: 5_000 });
      const seconds = (performance.now() - started) / 1000;
      console.log(`${kind}, ${size.toLocaleString('en')} sessions:`);
      console.log(
        `  ingest ${counts.ingested.toLocaleString('en')} events in ${seconds.toFixed(1)} s: ${Math.round(size / seconds).toLocaleString('en')} events/s`,
      );
      const handler = createLookupHandler({ store, keys: [{ key: KEY }] });
      const companies = companiesFor(size);
      console.log(
        `  lookup by domain:                 ${await latency(handler, (i) => ({ domain: `company${i % companies}.com` }))}`,
      );
      console.log(
        `  lookup by domain, with activity:  ${await latency(handler, (i) => ({ domain: `company${i % companies}.com`, includeActivity: true }))}`,
      );
      console.log(
        `  lookup by email, with activity:   ${await latency(handler, (i) => ({ email: emailOf((2 * i) % size, companies), includeActivity: true }))}`,
      );
      if (size === SIZES[0]) await compareHttp(handler, kind);
    } finally {
      await store.close();
      await opened.drop();
    }
  }
}
