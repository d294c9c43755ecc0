/**
 * The database going away while serving: the lookup answers 503 JSON (no stack) and recovers by
 * itself once the database is back. The outage is a TCP proxy in front of PostgreSQL that we stop
 * (dropping every connection) and start again on the same port.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createTestDatabase, requires } from '@service/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupHandler, type LookupStore, openPostgresStore } from '../src/index.js';
import { baseEvents, KEY, KEYS } from './support/events.js';

const database = await createTestDatabase();

function startProxy(
  port: number,
  target: URL,
): Promise<{ server: Server; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 5432), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
    client.pipe(upstream).pipe(client);
  });
  return new Promise((resolve) =>
    server.listen(port, '127.0.0.1', () =>
      resolve({
        server,
        close: () =>
          new Promise<void>((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      }),
    ),
  );
}

describe('PostgreSQL going away', requires(database.missing), () => {
  const target = new URL(database.url);
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let store: LookupStore;
  let port: number;
  const errors: unknown[] = [];

  beforeAll(async () => {
    proxy = await startProxy(0, target);
    port = (proxy.server.address() as { port: number }).port;
    const viaProxy = new URL(database.url);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(port);
    store = await openPostgresStore({ connectionString: viaProxy.toString() });
    await store.ingest(baseEvents());
  });
  afterAll(async () => {
    await store?.close();
    await proxy?.close();
    await database.drop();
  });

  const lookup = () =>
    createLookupHandler({ store, keys: KEYS, onError: (e) => errors.push(e) })(
      new Request('http://lookup.test/api/service/lookup', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: '{"domain":"acme.com"}',
      }),
    );

  it('answers 503 while the database is unreachable and recovers when it is back', async () => {
    expect((await lookup()).status).toBe(200);
    await proxy.close();
    const down = await lookup();
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('1');
    expect(await down.text()).toBe('{"error":"Service unavailable"}');
    const again = await lookup();
    expect(again.status).toBe(503);
    expect(errors.map((e) => (e as Error).name)).toContain('StoreUnavailableError');

    proxy = await startProxy(port, target);
    const up = await lookup();
    expect(up.status).toBe(200);
    expect((await up.json()).company.domain).toBe('acme.com');
  });

  it('an ingest during the outage fails as unavailable and stores nothing half', async () => {
    await proxy.close();
    await expect(store.ingest(baseEvents())).rejects.toMatchObject({
      name: 'StoreUnavailableError',
    });
    proxy = await startProxy(port, target);
    expect(await store.ingest(baseEvents())).toMatchObject({
      ingested: 0,
      unchanged: baseEvents().length,
    });
  });
});
