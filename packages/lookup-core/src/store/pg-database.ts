/**
 * The store's database operations on node-postgres: statements prepared once per connection
 * (named) or sent unnamed, transactions on one client, over a pool that may be chosen again when
 * its server is lost (`server-list.ts`).
 */
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { isUnavailable } from '../model/errors.js';
import type { ChosenServer } from './server-list.js';
import type { Database, Queryable, Transaction } from './sql/db.js';

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

/** `sql` as the named statement it is prepared as (or unnamed, when `named` is false). */
const statement = (sql: string, values: unknown[], named: boolean) =>
  named ? { name: statementName(sql), text: sql, values } : { text: sql, values };

const queryable = (client: pg.Pool | pg.PoolClient, named: boolean): Queryable => ({
  query: async <Row>(sql: string, params: unknown[] = []) =>
    (await client.query(statement(sql, params, named))).rows as Row[],
  exec: async (sql: string) => {
    await client.query(sql);
  },
});

/** Every column as the server sent it: text, not parsed into numbers or dates. */
const AS_TEXT = { getTypeParser: () => (text: string) => text } as unknown as pg.CustomTypesConfig;

const transactionOn = (client: pg.PoolClient, named: boolean): Transaction => ({
  ...queryable(client, named),
  queryText: async <Row>(sql: string, params: string[]) =>
    (await client.query({ ...statement(sql, params, named), types: AS_TEXT })).rows as Row[],
});

/** Where the store's queries go: one pool, or the pool of the server a list's choice settled on. */
export interface PoolSource {
  current(): Promise<ChosenServer>;
  /** `chosen` failed: choose again (a fixed pool stays). */
  lost(chosen: ChosenServer): void;
  stats(): { inUse: number; waiting: number };
  close(): Promise<void>;
}

/** A pool that is the only server: never chosen again. */
export function fixedSource(pool: pg.Pool, owned: boolean): PoolSource {
  // An idle client losing its server (restart, failover) must not crash the process; the pool
  // drops that client and the next query connects afresh.
  const ignoreConnectionError = () => {};
  pool.on('error', ignoreConnectionError);
  const chosen = Promise.resolve({ pool, server: 'pool' });
  return {
    current: () => chosen,
    lost: () => {},
    stats: () => ({ inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      // pool.end() resolves before its clients' sockets have closed; a server ending them in that
      // window (restart, DROP DATABASE ... WITH (FORCE)) must still not crash the process, so an
      // owned pool keeps ignoring errors. A pool you passed in gets its own listeners back.
      if (owned) await pool.end();
      else pool.off('error', ignoreConnectionError);
    },
  };
}

/**
 * A failure that means the server in use is gone, or is no longer what the list asked for (a
 * write refused as read-only: SQLSTATE 25006, on a server demoted to standby).
 */
const serverLost = (error: unknown) =>
  isUnavailable(error) || (error as { code?: unknown } | null)?.code === '25006';

/** A transaction on one client of `pool`: committed when `fn` resolves, rolled back when it throws. */
async function inTransaction<T>(
  pool: pg.Pool,
  named: boolean,
  fn: (tx: Transaction) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  // A connection dropped mid-transaction surfaces as the failing query's error, not as a crash.
  const ignoreConnectionError = () => {};
  client.on('error', ignoreConnectionError);
  const release = (error?: Error) => {
    client.off('error', ignoreConnectionError);
    client.release(error);
  };
  try {
    await client.query('BEGIN');
    const result = await fn(transactionOn(client, named));
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
}

/**
 * The store's database operations over `source`: statements (named, so prepared once per
 * connection, unless `named` is false), transactions on one client. A server lost under a query
 * is chosen again; a read is then tried once more, a transaction only when it had not begun.
 */
export function sourceDatabase(source: PoolSource, named: boolean): Database {
  const always = () => true;
  const never = () => false;
  async function on<T>(fn: (pool: pg.Pool) => Promise<T>, again: () => boolean): Promise<T> {
    const chosen = await source.current();
    try {
      return await fn(chosen.pool);
    } catch (error) {
      if (!serverLost(error)) throw error;
      source.lost(chosen);
      if (!again()) throw error;
      return fn((await source.current()).pool);
    }
  }
  return {
    query: (sql, params) => on((pool) => queryable(pool, named).query(sql, params), always),
    exec: (sql) => on((pool) => queryable(pool, named).exec(sql), never),
    transaction: (fn) => {
      // Once begun, the work may have committed before the connection went: not sent again.
      let begun = false;
      return on(
        (pool) =>
          inTransaction(pool, named, (tx) => {
            begun = true;
            return fn(tx);
          }),
        () => !begun,
      );
    },
    prepared: (sql, params) =>
      on(
        async (pool) =>
          (
            await pool.query<Array<string | null>>({
              ...statement(sql, params, named),
              rowMode: 'array',
            })
          ).rows,
        always,
      ),
    close: () => source.close(),
  };
}

/**
 * The store's database operations over `pool`: named statements, transactions on one client, and
 * `close` ending the pool when the store `owns` it (a pool passed in gets its own listeners back).
 */
export function postgresDatabase(pool: pg.Pool, owned: boolean): Database {
  return sourceDatabase(fixedSource(pool, owned), true);
}
