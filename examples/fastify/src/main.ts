/**
 * The lookup as a Fastify 5 route. Fastify parses request bodies itself and answers malformed or
 * non-JSON ones with its own error shape; the lookup must judge the key before the body and
 * answer in the spec's shape. So the route lives in its own plugin scope whose only content-type
 * parser leaves the body unread, and the handler takes over the raw request and response
 * (`reply.hijack()`, Fastify's documented way to answer outside its reply lifecycle).
 * The rest of the app keeps Fastify's JSON parsing.
 */
import { fileURLToPath } from 'node:url';
import { createLookupHandler, openEmbeddedStore } from '@service/lookup-core';
import { readNdjson, toNodeListener } from '@service/lookup-core/node';
import Fastify from 'fastify';

const {
  HOST = '127.0.0.1',
  PORT = '3000',
  // The repository's sample events, and the key samples/README.md documents for them.
  SERVICE_EVENTS_FILE = fileURLToPath(new URL('../../../samples/events.ndjson', import.meta.url)),
  SERVICE_SECRET_KEY = 'sk_live_sample_default_000000000000000000',
} = process.env;

const store = await openEmbeddedStore();
const { ingested } = await store.ingest(readNdjson(SERVICE_EVENTS_FILE));
const lookup = toNodeListener(createLookupHandler({ store, keys: [{ key: SERVICE_SECRET_KEY }] }));

const app = Fastify();
app.addHook('onClose', () => store.close());
await app.register(async (scope) => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _body, done) => done(null));
  scope.all('/api/service/lookup', async (request, reply) => {
    reply.hijack();
    await lookup(request.raw, reply.raw);
  });
});

const address = await app.listen({ host: HOST, port: Number(PORT) });
console.log(`${ingested} events from ${SERVICE_EVENTS_FILE}`);
console.log(`listening on ${address} (POST /api/service/lookup)`);

// app.close() lets requests in flight finish, then runs the onClose hook (closing the store).
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void app.close());
}
