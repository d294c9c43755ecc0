/**
 * The lookup in an Express 5 app. `toNodeListener(handler)` is an ordinary `(req, res)` middleware,
 * so it mounts like any other. Every method reaches it, so the lookup itself answers OPTIONS and
 * 405 for the other methods; it routes on `req.originalUrl`, so the mount path may be any prefix.
 */
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLookupHandler, openEmbeddedStore } from '@service/lookup-core';
import { readNdjson, toNodeListener } from '@service/lookup-core/node';
import express from 'express';

const {
  HOST = '127.0.0.1',
  PORT = '3000',
  // The repository's sample events, and the key samples/README.md documents for them.
  SERVICE_EVENTS_FILE = fileURLToPath(new URL('../../../samples/events.ndjson', import.meta.url)),
  SERVICE_SECRET_KEY = 'sk_live_sample_default_000000000000000000',
} = process.env;

const store = await openEmbeddedStore();
const { ingested } = await store.ingest(readNdjson(SERVICE_EVENTS_FILE));
const handler = createLookupHandler({ store, keys: [{ key: SERVICE_SECRET_KEY }] });

const app = express();
// Mounted before any body parser: the lookup reads its own body, after it has checked the key.
// (Behind `express.json()` it works too: the adapter takes the parsed `req.body`.)
app.use('/api/service/lookup', toNodeListener(handler));
app.use(express.json());
// ... the rest of your app's routes.

const server = app.listen(Number(PORT), HOST, () => {
  const { port } = server.address() as AddressInfo;
  console.log(`${ingested} events from ${SERVICE_EVENTS_FILE}`);
  console.log(`listening on http://${HOST}:${port} (POST /api/service/lookup)`);
});

// Stop taking requests, let those in flight finish, then close the store.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => void store.close()));
}
