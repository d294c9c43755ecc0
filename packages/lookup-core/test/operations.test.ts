/**
 * What an operator's load balancer and scraper read from `service-lookup serve` (embedded store,
 * real process on loopback), and the `metrics` option for apps that mount the handler themselves.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { METRIC_NAMES } from '../src/http/metrics.js';
import { createLookupHandler, type LookupStore, openEmbeddedStore } from '../src/index.js';
import { toNodeListener } from '../src/node.js';
import { baseEvents, KEY, KEYS } from './support/events.js';
import { lookup, type Served, serve } from './support/serve.js';

describe('serve: /healthz, /readyz, /metrics', () => {
  let plain: Served;
  let measured: Served;
  beforeAll(async () => {
    [plain, measured] = await Promise.all([
      serve([], { SERVICE_SECRET_KEYS: KEY }),
      serve(['--metrics'], { SERVICE_SECRET_KEYS: KEY }),
    ]);
  }, 60_000);
  afterAll(async () => {
    await plain?.stop();
    await measured?.stop();
  });

  it('/healthz and /readyz answer 200 without a key, and say which checks passed', async () => {
    const health = await fetch(`${plain.origin}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${plain.origin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({
      status: 'ready',
      checks: { store: 'ok', migrations: 'current', changeFeed: 'none' },
    });
  });

  it('/metrics is off by default: the lookup answers it with 404', async () => {
    const response = await fetch(`${plain.origin}/metrics`);
    expect(response.status).toBe(404);
    expect(await response.text()).toBe('{"error":"Not found"}');
  });

  it('with --metrics, /metrics lists every documented name in the Prometheus text format', async () => {
    expect((await lookup(measured.origin, KEY, { domain: 'acme.com' })).status).toBe(404);
    expect((await lookup(measured.origin, KEY, { domain: 'acme.com' })).status).toBe(404);
    expect((await lookup(measured.origin, 'sk_live_wrong_0123456789abcdefghij', {})).status).toBe(
      401,
    );
    const response = await fetch(`${measured.origin}/metrics`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await response.text();
    // Embedded: no change feed and no pool, so those have their HELP and TYPE lines only.
    for (const name of METRIC_NAMES) expect(text).toContain(`# TYPE ${name} `);
    expect(text).toContain('service_lookup_requests_total{status="404"} 2');
    expect(text).toContain('service_lookup_requests_total{status="401"} 1');
    expect(text).toContain('service_lookup_cache_hits_total 1');
    expect(text).toContain('service_lookup_cache_misses_total 1');
    expect(text).toContain('service_lookup_request_duration_seconds_count 3');
    expect(text).toContain('process_resident_memory_bytes');
    expect(text).not.toContain('sk_live_');
  });
});

describe('the metrics option of createLookupHandler', () => {
  let store: LookupStore;
  beforeAll(async () => {
    store = await openEmbeddedStore({ cache: {} });
    await store.ingest(baseEvents());
  }, 60_000);
  afterAll(() => store?.close());

  it("records lookups and the store's counts in the app's own registry", async () => {
    const registry = new Registry();
    const handler = createLookupHandler({ store, keys: KEYS, metrics: registry });
    const server = createServer(toNodeListener(handler)).listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    try {
      const origin = `http://127.0.0.1:${port}`;
      expect((await lookup(origin, KEY, { domain: 'acme.com' })).status).toBe(200);
      expect((await lookup(origin, KEY, { domain: 'acme.com' })).status).toBe(200);
    } finally {
      server.close();
    }
    const text = await registry.metrics();
    expect(text).toContain('service_lookup_requests_total{status="200"} 2');
    expect(text).toContain('service_lookup_cache_hits_total 1');
    expect(text).toMatch(/service_lookup_cache_entries [1-9]/);
    expect(text).toMatch(/service_lookup_ingest_events_total\{outcome="ingested"\} [1-9]/);
  });

  it('refuses a registry that already holds the lookup metrics, saying why', () => {
    const registry = new Registry();
    createLookupHandler({ store, keys: KEYS, metrics: registry });
    expect(() => createLookupHandler({ store, keys: KEYS, metrics: registry })).toThrow(
      'this prom-client registry already holds the lookup metrics: give each handler its own',
    );
  });
});
