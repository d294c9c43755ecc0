// The servers lookup.bench.ts drives, one per child process so the load generator never shares a
// process (or an event loop) with what it measures. `node lookup-servers.ts KIND`, told what to do
// through the environment; it sends `{ port }` to the parent once it listens.
//   lookup    the lookup (createLookupHandler + toNodeListener) over a real store with its cache:
//             LOOKUP_STORE=embedded|postgres, LOOKUP_SESSIONS=N (ingested first; 0 serves a
//             PostgreSQL database as it is), DATABASE_URL, LOOKUP_CACHE=off for no answer cache.
//             On `{ ingest: perSecond }` it ingests new sessions beside the load, and on
//             `{ report: true }` it answers what it ingested and the largest staleness it saw.
//   constant  the same shell over a store that answers PAYLOAD in no time
//   replay    node:http answering each request body with the bytes the lookup answered it with:
//             ANSWERS_FILE holds `[[body, answer], ...]`
//   hono      a minimal Hono app on @hono/node-server sending PAYLOAD
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve as serveHono } from '@hono/node-server';
import {
  createLookupHandler,
  type LookupStore,
  openEmbeddedStore,
  openPostgresStore,
} from '@service/lookup-core';
import { toNodeListener } from '@service/lookup-core/node';
import { Hono } from 'hono';
import { BENCH_KEY, HOT_DOMAINS, ingestBatch, sessions } from './lookup-data.ts';

const kind = process.argv[2];
const PAYLOAD = process.env.PAYLOAD ?? '';
const JSON_TYPE = 'application/json; charset=utf-8';
const keys = [{ key: BENCH_KEY }];
const send = (message: object) => process.send?.(message);

function listen(listener: Parameters<typeof createServer>[1]) {
  const server = createServer(listener);
  server.listen(0, '127.0.0.1', () => send({ port: (server.address() as AddressInfo).port }));
}

async function openStore(): Promise<{ store: LookupStore; ingestSeconds: number }> {
  const size = Number(process.env.LOOKUP_SESSIONS);
  const cache = process.env.LOOKUP_CACHE === 'off' ? undefined : {};
  const store =
    process.env.LOOKUP_STORE === 'postgres'
      ? await openPostgresStore({ connectionString: process.env.DATABASE_URL ?? '', cache })
      : await openEmbeddedStore({ cache });
  const started = performance.now();
  if (size === 0) return { store, ingestSeconds: 0 };
  const counts = await store.ingest(sessions(size), { batchSize: 5_000 });
  if (counts.ingested !== size) throw new Error(`ingested ${counts.ingested} of ${size} sessions`);
  return { store, ingestSeconds: (performance.now() - started) / 1000 };
}

/**
 * Ingests `perSecond` new sessions a second in ten batches, each for one hot company, and after
 * each commit asks the server over HTTP until the answer shows it: the time from the commit to
 * that answer is the staleness a client saw.
 */
function ingestBeside(store: LookupStore, origin: string, perSecond: number) {
  const report = { ingested: 0, batches: 0, maxStalenessMs: 0 };
  let stopped = false;
  let batch = 0;
  const perBatch = Math.max(1, Math.round(perSecond / 10));
  const probe = async (domain: string, lastSeen: string, committedAt: number) => {
    for (;;) {
      const response = await fetch(`${origin}/api/service/lookup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${BENCH_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ domain }),
      });
      const answer = (await response.json()) as { company: { service_last_seen: string } };
      if (answer.company.service_last_seen >= lastSeen) {
        report.maxStalenessMs = Math.max(report.maxStalenessMs, performance.now() - committedAt);
        return;
      }
    }
  };
  const loop = async () => {
    while (!stopped) {
      const started = performance.now();
      const { events, domain, lastSeen } = ingestBatch(batch++, perBatch);
      const counts = await store.ingest(events);
      const committedAt = performance.now();
      if (counts.rejected.length > 0) throw new Error(`rejected: ${counts.rejected[0]?.reason}`);
      report.ingested += counts.ingested;
      report.batches++;
      await probe(domain, lastSeen, committedAt);
      await new Promise((r) => setTimeout(r, Math.max(0, 100 - (performance.now() - started))));
    }
  };
  const done = loop();
  return async () => {
    stopped = true;
    await done;
    return report;
  };
}

if (kind === 'lookup') {
  const { store, ingestSeconds } = await openStore();
  const server = createServer(toNodeListener(createLookupHandler({ store, keys })));
  server.listen(0, '127.0.0.1', () => {
    const { port } = server.address() as AddressInfo;
    let stop: (() => Promise<object>) | undefined;
    process.on('message', async (message: { ingest?: number; report?: boolean }) => {
      if (message.ingest !== undefined)
        stop = ingestBeside(store, `http://127.0.0.1:${port}`, message.ingest);
      if (message.report) send({ report: (await stop?.()) ?? null });
    });
    send({ port, ingestSeconds, hot: HOT_DOMAINS.length });
  });
} else if (kind === 'constant') {
  // The answer as bytes too (what the SQL store's cache gives), so the shell alone is measured.
  const answer = JSON.parse(PAYLOAD);
  const bytes = Buffer.from(PAYLOAD);
  const constant = {
    lookup: async () => answer,
    lookupText: async () => bytes,
  } as unknown as LookupStore;
  listen(toNodeListener(createLookupHandler({ store: constant, keys })));
} else if (kind === 'replay') {
  const pairs = JSON.parse(readFileSync(process.env.ANSWERS_FILE ?? '', 'utf8')) as string[][];
  const answers = new Map(pairs.map(([body, answer]) => [body, Buffer.from(answer ?? '')]));
  listen((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const answer = answers.get(Buffer.concat(chunks).toString());
      if (answer === undefined) {
        res.writeHead(404).end();
        return;
      }
      res.writeHead(200, { 'content-type': JSON_TYPE, 'content-length': answer.length });
      res.end(answer);
    });
  });
} else if (kind === 'hono') {
  const app = new Hono();
  app.post('/api/service/lookup', async (c) => {
    await c.req.text();
    return c.body(PAYLOAD, 200, { 'content-type': JSON_TYPE });
  });
  serveHono({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) =>
    send({ port: info.port }),
  );
} else {
  throw new Error(`unknown server kind ${kind}`);
}
