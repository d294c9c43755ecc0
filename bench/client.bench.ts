// What @service/lookup-client costs per call: lookups per second through `LookupClient.lookup`
// (built package, default options: ky's retries and timeout, hooks, redaction, the answer checked
// against the contract) beside a bare `fetch` loop that POSTs the same body with the same key and
// parses the JSON answer. Both call the same server, in a child process of its own
// (lookup-servers.ts `constant`: the lookup's shell over a store answering one company with three
// contacts), from this process, CLIENT_BENCH_IN_FLIGHT calls at a time. After a warm-up of each
// side, the sides take turns for three rounds of CLIENT_BENCH_LOOKUPS calls each; each side's best
// round counts, and the ratio is client / bare fetch. Rates are computed from the calls that
// completed with a 200 whose answer names the company; any other outcome fails the bench.
//   CLIENT_BENCH_LOOKUPS=20000 per round    CLIENT_BENCH_IN_FLIGHT=1
import { type ChildProcess, fork } from 'node:child_process';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { LookupClient } from '@service/lookup-client';
import { BENCH_KEY } from './lookup-data.ts';

const LOOKUPS = Number(process.env.CLIENT_BENCH_LOOKUPS ?? 20_000);
const IN_FLIGHT = Number(process.env.CLIENT_BENCH_IN_FLIGHT ?? 1);
const WARM_UP = Math.min(2_000, LOOKUPS);
const ROUNDS = 3;
const TARGET = 0.9;
const DOMAIN = 'acme.com';

const at = '2026-11-28T10:00:00.000Z';
const contact = (n: number) => ({
  email: `person${n}@${DOMAIN}`,
  name: `Person ${n}`,
  title: 'Engineer',
  service_sessions: 3,
  service_first_seen: at,
  service_last_seen: at,
});
const PAYLOAD = JSON.stringify({
  company: {
    domain: DOMAIN,
    name: 'Acme',
    industry: 'Software',
    service_sessions: 9,
    service_visitors: 3,
    service_first_seen: at,
    service_last_seen: at,
    service_purchase_intent: 'high',
  },
  contacts: [contact(1), contact(2), contact(3)],
});

/** Starts the server and resolves with its lookup URL once it listens. */
function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = fork(join(import.meta.dirname, 'lookup-servers.ts'), ['constant'], {
    env: { ...process.env, PAYLOAD },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (info: { port: number }) =>
      resolve({ child, url: `http://127.0.0.1:${info.port}/api/service/lookup` }),
    );
    child.once('exit', (code) => reject(new Error(`the server exited (${code}) before listening`)));
  });
}

type Call = () => Promise<string>;

/** Makes `count` calls, `IN_FLIGHT` at a time; the rate of those whose answer names the company. */
async function rate(call: Call, count: number): Promise<{ perSecond: number; failed: number }> {
  let next = 0;
  let answered = 0;
  let failed = 0;
  const worker = async () => {
    while (next < count) {
      next++;
      try {
        if ((await call()) === DOMAIN) answered++;
        else failed++;
      } catch {
        failed++;
      }
    }
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: IN_FLIGHT }, worker));
  const seconds = (performance.now() - started) / 1000;
  return { perSecond: answered / seconds, failed };
}

const { child, url } = await startServer();
try {
  const body = JSON.stringify({ domain: DOMAIN, includeActivity: false });
  const bareFetch: Call = async () => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
      body,
    });
    if (response.status !== 200) throw new Error(`status ${response.status}`);
    return ((await response.json()) as { company: { domain: string } }).company.domain;
  };
  // Loopback, so plain http is allowed; everything else is the client's default.
  const client = new LookupClient({ secretKey: BENCH_KEY, baseUrl: url.replace(/\/api.*$/, '') });
  const throughClient: Call = async () => (await client.lookup({ domain: DOMAIN })).company.domain;
  const sides: Array<[string, Call]> = [
    ['bare fetch', bareFetch],
    ['LookupClient', throughClient],
  ];

  for (const [name, call] of sides) {
    const warm = await rate(call, WARM_UP);
    if (warm.failed > 0) throw new Error(`${name}: ${warm.failed} warm-up calls failed`);
  }
  const best = new Map<string, number>();
  for (let round = 1; round <= ROUNDS; round++) {
    for (const [name, call] of sides) {
      const { perSecond, failed } = await rate(call, LOOKUPS);
      if (failed > 0) throw new Error(`${name}: ${failed} of ${LOOKUPS} calls failed`);
      console.log(`round ${round}  ${name.padEnd(12)} ${perSecond.toFixed(0)} lookups/s`);
      best.set(name, Math.max(best.get(name) ?? 0, perSecond));
    }
  }
  const bare = best.get('bare fetch') ?? 0;
  const viaClient = best.get('LookupClient') ?? 0;
  const ratio = viaClient / bare;
  console.log(
    `\n${LOOKUPS} lookups a round, ${IN_FLIGHT} in flight, load average ${loadavg()[0]?.toFixed(2)}`,
  );
  console.log(`bare fetch     ${bare.toFixed(0)} lookups/s (${(1e6 / bare).toFixed(0)} µs a call)`);
  console.log(
    `LookupClient   ${viaClient.toFixed(0)} lookups/s (${(1e6 / viaClient).toFixed(0)} µs a call)`,
  );
  console.log(
    `ratio LookupClient / bare fetch: ${ratio.toFixed(2)} (target >= ${TARGET})` +
      (ratio < TARGET ? ': below target' : ''),
  );
  console.log(`client cost per call: ${(1e6 / viaClient - 1e6 / bare).toFixed(0)} µs`);
} catch (error) {
  console.error(`client bench failed: ${(error as Error).message}`);
  process.exitCode = 1;
} finally {
  child.kill();
}
