/**
 * The lookup's metrics in a `prom-client` registry: counted as requests are answered, and read from
 * the store's running counts (`store.stats()`) whenever the registry is scraped.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { LookupStore, StoreStats } from '../model/types.js';

/** Records each answered request. */
export interface LookupMetrics {
  observe(status: number, seconds: number): void;
}

/** Every metric name this module registers (the README lists them with their labels). */
export const METRIC_NAMES = [
  'service_lookup_requests_total',
  'service_lookup_request_duration_seconds',
  'service_lookup_cache_hits_total',
  'service_lookup_cache_misses_total',
  'service_lookup_cache_evictions_total',
  'service_lookup_cache_entries',
  'service_lookup_cache_bytes',
  'service_lookup_change_feed_listening',
  'service_lookup_change_feed_last_heard_seconds',
  'service_lookup_change_log_position',
  'service_lookup_replay_lag_seconds',
  'service_lookup_pool_connections_in_use',
  'service_lookup_pool_waiting',
  'service_lookup_ingest_events_total',
] as const;

type Name = (typeof METRIC_NAMES)[number];

/** Registers the lookup's metrics for `store` in `registry`; one handler per registry. */
export function registerLookupMetrics(registry: Registry, store: LookupStore): LookupMetrics {
  if (registry.getSingleMetric(METRIC_NAMES[0]) !== undefined)
    throw new TypeError(
      'this prom-client registry already holds the lookup metrics: give each handler its own',
    );
  const registers = [registry];
  const requests = new Counter({
    name: 'service_lookup_requests_total',
    help: 'Lookup requests answered, by HTTP status',
    labelNames: ['status'],
    registers,
  });
  const duration = new Histogram({
    name: 'service_lookup_request_duration_seconds',
    help: 'Time from a request reaching the handler to its answer, in seconds',
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers,
  });
  // Registered after the request metrics, in the order METRIC_NAMES lists them.
  registerStoreMetrics(registers, store);
  return {
    observe(status, seconds) {
      requests.inc({ status: String(status) });
      duration.observe(seconds);
    },
  };
}

/** The metrics read from the store's running counts (`store.stats()`) at each scrape. */
function registerStoreMetrics(registers: Registry[], store: LookupStore): void {
  const stats = (): StoreStats | undefined => store.stats?.();
  /** A gauge whose value is read from the store's counts at each scrape. */
  const gauge = (name: Name, help: string, read: (s: StoreStats) => number | null | undefined) =>
    new Gauge({
      name,
      help,
      registers,
      collect() {
        const s = stats();
        const value = s === undefined ? undefined : read(s);
        if (value === null || value === undefined) this.reset();
        else this.set(value);
      },
    });
  // Totals the store keeps itself, exposed as counters (monotonic since the store opened).
  const total = (name: Name, help: string, read: (s: StoreStats) => number) =>
    new Counter({
      name,
      help,
      registers,
      collect() {
        const s = stats();
        if (s === undefined) return;
        this.reset();
        this.inc(read(s));
      },
    });

  total(
    'service_lookup_cache_hits_total',
    'Lookups answered from the answer cache',
    (s) => s.cache.hits,
  );
  total(
    'service_lookup_cache_misses_total',
    'Lookups read from the database: not cached, or the change feed not fresh',
    (s) => s.cache.misses,
  );
  total(
    'service_lookup_cache_evictions_total',
    'Cached answers dropped to stay within the cache bounds',
    (s) => s.cache.evictions,
  );
  gauge('service_lookup_cache_entries', 'Answers held in the cache', (s) => s.cache.entries);
  gauge('service_lookup_cache_bytes', 'Bytes the cached answers count for', (s) => s.cache.bytes);
  gauge(
    'service_lookup_change_feed_listening',
    '1 while the PostgreSQL change feed listens, 0 when not (absent without a feed)',
    (s) => (s.changeFeed === undefined ? undefined : s.changeFeed.listening ? 1 : 0),
  );
  gauge(
    'service_lookup_change_feed_last_heard_seconds',
    'Seconds since the change feed last confirmed it heard every commit',
    (s) => s.changeFeed?.lastHeardSeconds,
  );
  gauge(
    'service_lookup_change_log_position',
    'Highest change log position this server has read (absent without a feed or before a row)',
    (s) => s.changeLog?.position,
  );
  gauge(
    'service_lookup_replay_lag_seconds',
    'Seconds the standby read from replays behind its primary, 0 when caught up (absent on a primary)',
    (s) => s.changeLog?.replayLagSeconds,
  );
  gauge(
    'service_lookup_pool_connections_in_use',
    'PostgreSQL pool connections running a query',
    (s) => s.pool?.inUse,
  );
  gauge(
    'service_lookup_pool_waiting',
    'Queries waiting for a PostgreSQL pool connection',
    (s) => s.pool?.waiting,
  );
  new Counter({
    name: 'service_lookup_ingest_events_total',
    help: 'Events ingested into the store, by outcome',
    labelNames: ['outcome'],
    registers,
    collect() {
      const s = stats();
      if (s === undefined) return;
      this.reset();
      for (const [outcome, count] of Object.entries(s.ingested)) this.inc({ outcome }, count);
    },
  });
}
