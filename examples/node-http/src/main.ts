/**
 * The lookup on a bare node:http server. `toNodeListener` turns the Fetch handler into the
 * `(req, res)` listener node:http expects; the handler answers 404/405 for anything but
 * `POST /api/service/lookup` itself.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { createLookupHandler, openEmbeddedStore } from '@service/lookup-core';
import { readNdjson, toNodeListener } from '@service/lookup-core/node';

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

const server = createServer(toNodeListener(handler));
server.listen(Number(PORT), HOST, () => {
  const { port } = server.address() as AddressInfo;
  console.log(`${ingested} events from ${SERVICE_EVENTS_FILE}`);
  console.log(`listening on http://${HOST}:${port} (POST /api/service/lookup)`);
});

// Stop taking requests, let those in flight finish, then close the store.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => void store.close()));
}
