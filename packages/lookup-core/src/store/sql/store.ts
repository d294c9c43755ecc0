/** The one SQL implementation of `LookupStore`, over any `Database` (PGlite or pg). */

import {
  isUnavailable,
  StoreClosedError,
  StoreReadOnlyError,
  StoreUnavailableError,
} from '../../model/errors.js';
import type {
  LookupQuery,
  LookupResult,
  LookupStore,
  StoreReadiness,
  StoreStats,
} from '../../model/types.js';
import { AnswerCache, type AnswerCacheOptions, cacheWanted } from '../cache.js';
import type { ChangeFeed, StoreEvent } from '../change-feed.js';
import type { ChangeLogFeed } from '../change-log.js';
import { readAggregates } from './aggregates.js';
import type { Database } from './db.js';
import { ingestEvents } from './ingest.js';
import { lookupAnswer } from './lookup.js';
import { checkSchema, LATEST_MIGRATION, migrate } from './migrations.js';

const UTF8 = new TextDecoder();

/** Runs `fn`, turning "database unreachable" driver errors into `StoreUnavailableError`. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isUnavailable(error)) throw new StoreUnavailableError({ cause: error });
    throw error;
  }
}

export interface SqlStoreOptions {
  /** Keep answers, within these bounds (see `AnswerCache`); none are kept without it. */
  cache?: AnswerCacheOptions;
  /**
   * Commits of other processes (the PostgreSQL change log), made once the server's role is known;
   * without one, only this process writes.
   */
  feed?: (server: ServerRole) => ChangeLogFeed;
  /** The connections the store's pool holds for queries and the queries waiting for one. */
  pool?: () => { inUse: number; waiting: number };
  /** Where lookups are read when not from the database written to (read replicas). */
  reads?: Database;
  /** Not ready while the server read from replays more than this many seconds behind. */
  maxReplayLagSeconds?: number;
}

/** Whether a server takes writes. */
export interface ServerRole {
  /** A hot standby, or a server whose transactions are read-only. */
  readOnly: boolean;
  /** Why it takes no writes, when it does not. */
  reason?: string;
}

/** What the server is now: a standby (in recovery) or read-only server takes no writes. */
async function roleOf(db: Database): Promise<ServerRole> {
  const [row] = await db.query<{ recovery: boolean; ro: string }>(
    "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS ro",
  );
  if (row?.recovery === true)
    return { readOnly: true, reason: 'the server is a hot standby (in recovery)' };
  if (row?.ro === 'on')
    return { readOnly: true, reason: 'the server is read-only (transaction_read_only is on)' };
  return { readOnly: false };
}

/** What the store counts as it runs, reported by `stats()`. */
interface RunningCounts {
  hits: number;
  misses: number;
  ingested: StoreStats['ingested'];
}

/** Migrates `db` and serves the store from it; `db` is closed when the migration fails. */
export async function openSqlStore(
  db: Database,
  options: SqlStoreOptions = {},
): Promise<LookupStore> {
  const role = await migrateOrClose(db, options.reads);
  const feed = options.feed?.(role);
  const reads = options.reads ?? db;
  const cache = new AnswerCache(cacheWanted(options.cache) ? options.cache : { maxBytes: 0 });
  const watchers = new Set<(event: StoreEvent) => void>();
  const emit = (event: StoreEvent) => {
    cache.apply(event);
    for (const watcher of watchers) watcher(event);
  };
  feed?.start(emit);
  let closed = false;
  const counts: RunningCounts = {
    hits: 0,
    misses: 0,
    ingested: { ingested: 0, unchanged: 0, replaced: 0, rejected: 0 },
  };
  const open = () => {
    if (closed) throw new StoreClosedError();
  };
  const answerText = answerReader(reads, cache, feed, counts, open);
  const store: LookupStore = {
    async ingest(events, options) {
      open();
      // Asked each time: a standby may have been promoted since the store opened.
      const now = await guarded(() => roleOf(db));
      if (now.readOnly) throw new StoreReadOnlyError(now.reason ?? 'the server is read-only');
      const result = await guarded(() =>
        ingestEvents(db, events, {
          ...options,
          // The cache learns of this process's commits in the same tick, before ingest goes on.
          onCommitted: (notices) => {
            for (const notice of notices) emit(notice);
            options?.onCommitted?.(notices);
          },
        }),
      );
      const total = counts.ingested;
      total.ingested += result.ingested;
      total.unchanged += result.unchanged;
      total.replaced += result.replaced;
      total.rejected += result.rejected.length;
      return result;
    },
    async lookup(query) {
      const text = await answerText(query);
      if (text === null) return null;
      return JSON.parse(typeof text === 'string' ? text : UTF8.decode(text)) as LookupResult;
    },
    watch(watcher) {
      watchers.add(watcher);
      return () => {
        watchers.delete(watcher);
      };
    },
    readiness: () => readinessOf(reads, feed, open, options.maxReplayLagSeconds),
    stats: () => statsOf(counts, cache, feed, options.pool),
    async *readAggregates(options) {
      open();
      const iterator = readAggregates(db, options?.workspace ?? 'default')[Symbol.asyncIterator]();
      for (;;) {
        const next = await guarded(() => iterator.next());
        if (next.done) return;
        yield next.value;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await feed?.close();
      await db.close();
      if (reads !== db) await reads.close();
    },
  };
  // Not enumerable: a wrapper spread from this store (`{ ...store, lookup }`) must not keep a text
  // path that bypasses its own `lookup`.
  return Object.defineProperty(store, 'lookupText', { value: answerText });
}

/**
 * Brings the schema up to date, or on a server that takes no writes checks the one its primary
 * wrote; `reads` (replicas) must have it too. A store that cannot open leaves no connection behind.
 */
async function migrateOrClose(db: Database, reads: Database | undefined): Promise<ServerRole> {
  try {
    const role = await guarded(() => roleOf(db));
    await guarded(() => (role.readOnly ? checkSchema(db) : migrate(db)));
    if (reads !== undefined) await guarded(() => checkSchema(reads));
    return role;
  } catch (error) {
    await db.close();
    await reads?.close();
    throw error;
  }
}

/**
 * Answers a lookup as JSON text: from the cache while the change feed (if any) is fresh, else
 * from the database, keeping the answer for next time. `open` throws once the store is closed.
 */
function answerReader(
  db: Database,
  cache: AnswerCache,
  feed: ChangeFeed | undefined,
  counts: RunningCounts,
  open: () => void,
): (query: LookupQuery) => Promise<string | Uint8Array | null> {
  return async (query) => {
    open();
    if (!cache.enabled) return (await guarded(() => lookupAnswer(db, query)))?.body ?? null;
    if (feed === undefined || feed.fresh()) {
      const kept = cache.get(query);
      if (kept !== undefined) {
        counts.hits++;
        return kept;
      }
    }
    // Not kept, or not to be trusted while the feed is stale: read from the database.
    counts.misses++;
    const ticket = cache.begin(query);
    const answer = await guarded(() => lookupAnswer(db, query));
    // Kept as UTF-8 bytes: each hit is then sent without encoding the text again.
    const bytes = answer === null ? null : Buffer.from(answer.body);
    cache.fill(ticket, query, bytes, answer ?? {});
    return bytes;
  };
}

/** How the feed hears other processes now (see `StoreReadiness.changeFeed`). */
function feedState(feed: ChangeLogFeed | undefined): StoreReadiness['changeFeed'] {
  if (feed === undefined) return 'none';
  if (feed.woken()) return feed.listening() ? 'listening' : 'not listening';
  return feed.fresh() ? 'polling' : 'not listening';
}

/**
 * Ready when the schema is current, the change feed (if there is one) hears other processes, and
 * a standby read from replays within `maxLagSeconds`.
 */
async function readinessOf(
  db: Database,
  feed: ChangeLogFeed | undefined,
  open: () => void,
  maxLagSeconds = Number.POSITIVE_INFINITY,
): Promise<StoreReadiness> {
  const changeFeed = feedState(feed);
  const lag = feed?.log().replayLagSeconds ?? null;
  const replication = lag === null ? {} : { replayLagSeconds: lag };
  let rows: Array<{ version: number | null }>;
  try {
    open();
    rows = await db.query('SELECT max(version) AS version FROM service_lookup_migrations');
  } catch {
    return { ready: false, store: 'unavailable', migrations: 'unknown', changeFeed };
  }
  const migrations = Number(rows[0]?.version) >= LATEST_MIGRATION ? 'current' : 'behind';
  const ready =
    migrations === 'current' && changeFeed !== 'not listening' && (lag ?? 0) <= maxLagSeconds;
  return { ready, store: 'ok', migrations, changeFeed, ...replication };
}

/** A snapshot of the running counts, the cache's size, and the feed and pool when present. */
function statsOf(
  counts: RunningCounts,
  cache: AnswerCache,
  feed: ChangeLogFeed | undefined,
  pool: SqlStoreOptions['pool'],
): StoreStats {
  const heardAgoMs = feed?.heardAgoMs();
  return {
    cache: {
      hits: counts.hits,
      misses: counts.misses,
      evictions: cache.evictions,
      ...cache.size,
    },
    ...(feed === undefined
      ? {}
      : {
          changeFeed: {
            listening: feedState(feed) !== 'not listening',
            lastHeardSeconds: heardAgoMs == null ? null : heardAgoMs / 1000,
          },
          changeLog: feed.log(),
        }),
    ...(pool === undefined ? {} : { pool: pool() }),
    ingested: { ...counts.ingested },
  };
}
