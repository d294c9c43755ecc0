/** The embedded store: PostgreSQL compiled to WebAssembly (PGlite), in this process, no server. */
import { PGlite } from '@electric-sql/pglite';
import type { LookupStore } from '../model/types.js';
import type { AnswerCacheOptions } from './cache.js';
import { preparedStatements } from './pglite-prepared.js';
import { queryText } from './pglite-text-query.js';
import type { Database, Queryable } from './sql/db.js';
import { openSqlStore } from './sql/store.js';

/** Options of `openEmbeddedStore`. */
export interface EmbeddedStoreOptions {
  /** Directory to persist the database in; in memory when absent. */
  dataDir?: string;
  /** Keep rendered answers, within these bounds (`{}` for the defaults); none are kept without it. */
  cache?: AnswerCacheOptions;
}

interface PgliteLike {
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[] }>;
  exec(sql: string): Promise<unknown>;
}

const queryable = (pg: PgliteLike): Queryable => ({
  query: async <Row>(sql: string, params?: unknown[]) => (await pg.query<Row>(sql, params)).rows,
  exec: async (sql: string) => {
    await pg.exec(sql);
  },
});

/** The store's database operations over `pg`. */
export function pgliteDatabase(pg: PGlite): Database {
  return {
    ...queryable(pg),
    // `queryText` speaks to `pg` itself: the open transaction holds PGlite's locks meanwhile, and
    // its protocol entry point takes none.
    transaction: (fn) =>
      pg.transaction((tx) =>
        fn({ ...queryable(tx), queryText: (sql, params) => queryText(pg, sql, params) }),
      ),
    close: () => pg.close(),
    prepared: preparedStatements(pg),
  };
}

/** Opens (creating and migrating when needed) an embedded store. Takes one to a few seconds. */
export async function openEmbeddedStore(options: EmbeddedStoreOptions = {}): Promise<LookupStore> {
  const pg =
    options.dataDir === undefined ? await PGlite.create() : await PGlite.create(options.dataDir);
  return openSqlStore(
    pgliteDatabase(pg),
    options.cache === undefined ? {} : { cache: options.cache },
  );
}
