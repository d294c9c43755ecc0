// lookup-core's handler served the way its README shows, by `Bun.serve({ fetch: lookup })` or
// `Deno.serve(lookup)`, over the embedded store or PostgreSQL. Arguments: the secret key and, for
// PostgreSQL, the database URL; the events come on stdin. Prints where it listens.
import { createLookupHandler, openEmbeddedStore, openPostgresStore } from '@service/lookup-core';

const { Bun, Deno } = globalThis;
const [key, databaseUrl] = Bun ? Bun.argv.slice(2) : Deno.args;
const events = await new Response(Bun ? Bun.stdin.stream() : Deno.stdin.readable).text();

const store = databaseUrl
  ? await openPostgresStore({ connectionString: databaseUrl })
  : await openEmbeddedStore();
await store.ingest(events.split('\n'));
const lookup = createLookupHandler({ store, keys: [{ key, workspace: 'default' }] });

const listening = (port) => console.log(`listening on http://127.0.0.1:${port}`);
if (Bun) listening(Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: lookup }).port);
else
  Deno.serve({ hostname: '127.0.0.1', port: 0, onListen: ({ port }) => listening(port) }, lookup);
