/**
 * The lookup in a Hono 4 app on Node (@hono/node-server). Hono speaks Fetch like the lookup
 * handler does, so the route hands it the raw `Request` and returns its `Response` as it is.
 */
import { fileURLToPath } from 'node:url';
import { serve } from '@hono/node-server';
import { createLookupHandler, openEmbeddedStore } from '@service/lookup-core';
import { readNdjson } from '@service/lookup-core/node';
import { Hono } from 'hono';

const {
  HOST = '127.0.0.1',
  PORT = '3000',
  // The repository's sample events, and the key samples/README.md documents for them.
  SERVICE_EVENTS_FILE = fileURLToPath(new URL('../../../samples/events.ndjson', import.meta.url)),
  SERVICE_SECRET_KEY = 'sk_live_sample_default_000000000000000000',
} = process.env;

const store = await openEmbeddedStore();
const { ingested } = await store.ingest(readNdjson(SERVICE_EVENTS_FILE));
const lookup = createLookupHandler({ store, keys: [{ key: SERVICE_SECRET_KEY }] });

const app = new Hono();
// `all`, not `post`: the lookup answers OPTIONS and 405 (with Allow) for the other methods.
app.all('/api/service/lookup', (c) => lookup(c.req.raw));

const server = serve({ fetch: app.fetch, hostname: HOST, port: Number(PORT) }, ({ port }) => {
  console.log(`${ingested} events from ${SERVICE_EVENTS_FILE}`);
  console.log(`listening on http://${HOST}:${port} (POST /api/service/lookup)`);
});

// Stop taking requests, let those in flight finish, then close the store.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => void store.close()));
}
