/** The PostgreSQL store: the same schema and queries as the embedded one, on a server, through pg. */
import pg from 'pg';
import { LookupCoreError, StoreUnavailableError } from '../model/errors.js';
import type { LookupStore } from '../model/types.js';
import { type AnswerCacheOptions, cacheWanted } from './cache.js';
import { FEED_APPLICATION_NAME, listenForChanges } from './change-feed.js';
import { followChanges } from './change-log.js';
import { parseDatabaseUrl, type ServerList } from './libpq-url.js';
import { fixedSource, type PoolSource, sourceDatabase } from './pg-database.js';
import { ServerFollower } from './server-list.js';
import { openSqlStore } from './sql/store.js';

/**
 * Options of `openPostgresStore`: a connection string (the store owns the pool it creates and ends
 * it on `close()`) or a `pg` pool you own (used, and left open on `close()`), and the cache.
 */
export type PostgresStoreOptions = (
  | {
      /**
       * A `postgres://` URL of the database, libpq's multi-host form included:
       * `postgres://user@h1:5432,h2:5432/db?target_session_attrs=read-write` tries the hosts in
       * order and keeps the first that matches (`any`, `read-write`, `read-only`, `primary`,
       * `standby`, `prefer-standby`, with libpq's meaning), and chooses again when it is lost.
       * `pgbouncer=true` says a pooler in transaction mode is in between (no named prepared
       * statements, no `LISTEN`).
       */
      connectionString: string;
      /** Size of the store's pool (default 10, `pg`'s default). */
      maxConnections?: number;
      /**
       * Where lookups and the change log are read, when not from `connectionString`: a URL of
       * the read replicas (a multi-host URL, say with `target_session_attrs=prefer-standby`).
       * Ingest and migrations stay on `connectionString`.
       */
      readReplicas?: string;
    }
  | {
      /** A `pg` pool you own. */
      pool: pg.Pool;
      /** Not with a pool of your own. */
      readReplicas?: undefined;
    }
) & {
  /**
   * The answer cache's bounds; `{ maxBytes: 0 }` turns it off. While it is on, the store reads the
   * change log other processes' ingest writes (and, on a single primary, listens for a wake-up).
   */
  cache?: AnswerCacheOptions;
  /**
   * Named prepared statements, each prepared once per connection (default true; false with
   * `pgbouncer=true` in the URL). PgBouncer before 1.21 in transaction mode needs them off.
   */
  preparedStatements?: boolean;
  /** A store reading from a standby is not ready past this replay lag (default 30 seconds). */
  maxReplayLagSeconds?: number;
};

/** Where a URL points: one server as it is, or a list followed by `ServerFollower`. */
function urlSource(
  url: string,
  max: number,
  what: string,
  applicationName?: string,
): { source: PoolSource; list: ServerList } {
  let list: ServerList;
  try {
    list = parseDatabaseUrl(url);
  } catch (error) {
    throw new TypeError(`${what} ${(error as Error).message}`);
  }
  const options = {
    max,
    connectionTimeoutMillis: 5_000,
    ...(applicationName === undefined ? {} : { application_name: applicationName }),
  };
  if (list.hosts.length === 1 && list.targetSessionAttrs === 'any') {
    const pool = new pg.Pool({ ...options, connectionString: list.urlFor(0) });
    return { source: fixedSource(pool, true), list };
  }
  return { source: new ServerFollower(list, options), list };
}

/** The statements of `source`: named unless turned off, or unless the URL says `pgbouncer=true`. */
const databaseOf = (
  { source, list }: { source: PoolSource; list: ServerList | undefined },
  preparedStatements: boolean | undefined,
) => sourceDatabase(source, preparedStatements ?? list?.pgbouncer !== true);

/**
 * Where `LISTEN` can wake the change log's reader at once: one server reached directly (not
 * through a pooler, which keeps no session); `undefined` elsewhere, where the log is polled.
 */
function listenTarget(options: PostgresStoreOptions, list: ServerList | undefined) {
  if ('pool' in options) return options.pool.options;
  if (list === undefined || list.hosts.length !== 1 || list.pgbouncer) return undefined;
  return { connectionString: list.urlFor(0), connectionTimeoutMillis: 5_000 };
}

/** What a user can do about a failure to open, from PostgreSQL's SQLSTATE. */
function openReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (code === '3D000') return `${message} (create it first, e.g. with createdb)`;
  if (code === '28000' || code === '28P01')
    return `${message} (check the user and password in the connection string, and pg_hba.conf)`;
  return message;
}

/**
 * Opens a store on a PostgreSQL server: on a primary, pending migrations are applied; on a hot
 * standby (or any read-only server) the schema the primary wrote is checked instead, and ingest is
 * refused. Rejects with `StoreUnavailableError` saying why when the server refuses (unreachable,
 * missing database, authentication), the driver's error kept as its `cause`.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<LookupStore> {
  try {
    return await openOn(options);
  } catch (error) {
    if (error instanceof TypeError) throw error; // a malformed URL is the caller's mistake
    if (error instanceof LookupCoreError && !(error instanceof StoreUnavailableError)) throw error;
    const cause = error instanceof StoreUnavailableError ? error.cause : error;
    throw new StoreUnavailableError({ cause, reason: openReason(cause) });
  }
}

async function openOn(options: PostgresStoreOptions): Promise<LookupStore> {
  const max = 'connectionString' in options ? (options.maxConnections ?? 10) : 0;
  const writes =
    'connectionString' in options
      ? urlSource(options.connectionString, max, 'the database URL')
      : { source: fixedSource(options.pool, false), list: undefined };
  const db = databaseOf(writes, options.preparedStatements);
  const reads =
    options.readReplicas === undefined
      ? undefined
      : databaseOf(
          urlSource(options.readReplicas, max, 'the read replicas URL'),
          options.preparedStatements,
        );
  const { cache } = options;
  const storeOptions = {
    pool: () => writes.source.stats(),
    ...(reads === undefined ? {} : { reads }),
    maxReplayLagSeconds: options.maxReplayLagSeconds ?? 30,
  };
  if (!cacheWanted(cache)) return openSqlStore(db, storeOptions);
  const listenTo = reads === undefined ? listenTarget(options, writes.list) : undefined;
  // On a standby LISTEN is refused: the log is polled there.
  const feed = ({ readOnly }: { readOnly: boolean }) => {
    const polled = pollDatabase(options);
    const follower = followChanges(
      polled,
      listenTo === undefined || readOnly ? {} : { wakeUp: listenForChanges(listenTo) },
    );
    return {
      ...follower,
      async close() {
        await follower.close();
        await polled.close();
      },
    };
  };
  return openSqlStore(db, { ...storeOptions, cache, feed });
}

/**
 * Where the change log is polled: a connection of its own to where lookups read. In the lookups'
 * pool a poll waited behind every lookup queued there, and a poll older than the staleness bound
 * sends every lookup to the database (more queueing): a busy store stopped using its cache.
 */
function pollDatabase(options: PostgresStoreOptions) {
  if ('pool' in options)
    return databaseOf(
      {
        source: fixedSource(
          new pg.Pool({ ...options.pool.options, max: 1, application_name: FEED_APPLICATION_NAME }),
          true,
        ),
        list: undefined,
      },
      options.preparedStatements,
    );
  const url = options.readReplicas ?? options.connectionString;
  const what = options.readReplicas === undefined ? 'the database URL' : 'the read replicas URL';
  return databaseOf(urlSource(url, 1, what, FEED_APPLICATION_NAME), options.preparedStatements);
}
