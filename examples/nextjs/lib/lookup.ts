/**
 * One lookup handler per server process. Next.js imports route modules while it builds and may
 * import them again per request, so the store opens on the first request (not at import), and
 * the promise lives at module level so every later request shares it.
 */
import path from 'node:path';
import { createLookupHandler, type LookupHandler, openEmbeddedStore } from '@service/lookup-core';
import { readNdjson } from '@service/lookup-core/node';

const {
  // `next start` runs in this folder: the repository's sample events are two levels up.
  SERVICE_EVENTS_FILE = path.join(process.cwd(), '../../samples/events.ndjson'),
  // The key samples/README.md documents for the sample events.
  SERVICE_SECRET_KEY = 'sk_live_sample_default_000000000000000000',
} = process.env;

async function openLookup(): Promise<LookupHandler> {
  const store = await openEmbeddedStore();
  await store.ingest(readNdjson(SERVICE_EVENTS_FILE));
  return createLookupHandler({ store, keys: [{ key: SERVICE_SECRET_KEY }] });
}

let handler: Promise<LookupHandler> | undefined;

export function lookupHandler(): Promise<LookupHandler> {
  handler ??= openLookup().catch((error: unknown) => {
    handler = undefined; // let the next request try again instead of failing forever
    throw error;
  });
  return handler;
}
