/** The PostgreSQL store: the same schema and queries as the embedded one, on a server, through pg. */
import { createHash } from 'node:crypto';
import pg from 'pg';
import { LookupCoreError, StoreUnavailableError } from '../model/errors.js';
import type { LookupStore } from '../model/types.js';
import { type AnswerCacheOptions, cacheWanted } from './cache.js';
import { listenForChanges } from './change-feed.js';
import type { Database, Queryable, Transaction } from './sql/db.js';
import { openSqlStore } from './sql/store.js';

/**
 * Options of `openPostgresStore`: a connection string (the store owns the pool it creates and ends
 * it on `close()`) or a `pg` pool you own (used, and left open on `close()`), and the cache.
 */
export type PostgresStoreOptions = (
  | {
      /** A `postgres://` URL of the database. */
      connectionString: string;
      /** Size of the store's pool (default 10, `pg`'s default). */
      maxConnections?: number;
    }
  | {
      /** A `pg` pool you own. */
      pool: pg.Pool;
    }
) & {
  /**
   * The answer cache's bounds; `{ maxBytes: 0 }` turns it off. While it is on, the store listens
   * for other processes' commits on a connection of its own (not one of the pool's).
   */
  cache?: AnswerCacheOptions;
};

/**
 * Every statement of the store is a constant string, so each is prepared once per connection under
 * a name derived from its text and then only bound and executed: no re-parsing, no re-planning.
 */
const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    name = `service_lookup_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/** `sql` as the named statement it is prepared as, with its parameters. */
const statement = (sql: string, values: unknown[]) => ({
  name: statementName(sql),
  text: sql,
  values,
});

const queryable = (client: pg.Pool | pg.PoolClient): Queryable => ({
  query: async <Row>(sql: string, params: unknown[] = []) =>
    (await client.query(statement(sql, params))).rows as Row[],
  exec: async (sql: string) => {
    await client.query(sql);
  },
});

/** Every column as the server sent it: text, not parsed into numbers or dates. */
const AS_TEXT = { getTypeParser: () => (text: string) => text } as unknown as pg.CustomTypesConfig;

const transactionOn = (client: pg.PoolClient): Transaction => ({
  ...queryable(client),
  queryText: async <Row>(sql: string, params: string[]) =>
    (await client.query({ ...statement(sql, params), types: AS_TEXT })).rows as Row[],
});

/**
 * The store's database operations over `pool`: named statements, transactions on one client, and
 * `close` ending the pool when the store `owns` it (a pool passed in gets its own listeners back).
 */
export function postgresDatabase(pool: pg.Pool, owned: boolean): Database {
  // An idle client losing its server (restart, failover) must not crash the process; the pool
  // drops that client and the next query connects afresh.
  const ignoreConnectionError = () => {};

  pool.on('error', ignoreConnectionError);
  return {
    ...queryable(pool),
    async transaction(fn) {
      const client = await pool.connect();
      // A connection dropped mid-transaction surfaces as the failing query's error, not as a crash.
      client.on('error', ignoreConnectionError);
      const release = (error?: Error) => {
        client.off('error', ignoreConnectionError);
        client.release(error);
      };
      try {
        await client.query('BEGIN');
        const result = await fn(transactionOn(client));
        await client.query('COMMIT');
        release();
        return result;
      } catch (error) {
        // A broken connection is destroyed rather than returned to the pool.
        const rollback = await client.query('ROLLBACK').then(
          () => undefined,
          (e: unknown) => e,
        );
        release(rollback instanceof Error ? rollback : undefined);
        throw error;
      }
    },
    prepared: async (sql, params) =>
      (await pool.query<Array<string | null>>({ ...statement(sql, params), rowMode: 'array' }))
        .rows,
    close: async () => {
      // pool.end() resolves before its clients' sockets have closed; a server ending them in that
      // window (restart, DROP DATABASE ... WITH (FORCE)) must still not crash the process, so an
      // owned pool keeps ignoring errors. A pool you passed in gets its own listeners back.
      if (owned) await pool.end();
      else pool.off('error', ignoreConnectionError);
    },
  };
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
 * Opens a store on a PostgreSQL server, applying pending migrations. Rejects with
 * `StoreUnavailableError` saying why when the server refuses (unreachable, missing database,
 * authentication), the driver's error kept as its `cause`.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<LookupStore> {
  try {
    return await openOn(options);
  } catch (error) {
    if (error instanceof LookupCoreError && !(error instanceof StoreUnavailableError)) throw error;
    const cause = error instanceof StoreUnavailableError ? error.cause : error;
    throw new StoreUnavailableError({ cause, reason: openReason(cause) });
  }
}

async function openOn(options: PostgresStoreOptions): Promise<LookupStore> {
  const owned = 'connectionString' in options;
  const pool = owned
    ? new pg.Pool({
        connectionString: options.connectionString,
        max: options.maxConnections ?? 10,
        connectionTimeoutMillis: 5_000,
      })
    : options.pool;
  const db = postgresDatabase(pool, owned);
  const config: pg.ClientConfig = owned
    ? { connectionString: options.connectionString, connectionTimeoutMillis: 5_000 }
    : pool.options;
  const { cache } = options;
  const poolStats = () => ({
    inUse: pool.totalCount - pool.idleCount,
    waiting: pool.waitingCount,
  });
  if (!cacheWanted(cache)) return openSqlStore(db, { pool: poolStats });
  return openSqlStore(db, { cache, feed: listenForChanges(config), pool: poolStats });
}
