/** The embedded store: PostgreSQL compiled to WebAssembly (PGlite), in this process, no server. */
import { PGlite } from '@electric-sql/pglite';
import { DiskFullError } from '../model/errors.js';
import type { LookupStore } from '../model/types.js';
import type { AnswerCacheOptions } from './cache.js';
import { collectGarbage } from './collect-garbage.js';
import { lockDataDir } from './data-dir-lock.js';
import {
  ensureRoomToWrite,
  freeBytes,
  isDiskFull,
  WRITE_RESERVE_BYTES,
  watchDisk,
} from './disk-watchdog.js';
import { preparedStatements } from './pglite-prepared.js';
import { queryText } from './pglite-text-query.js';
import type { Database, Queryable } from './sql/db.js';
import { openSqlStore } from './sql/store.js';
import { checkpointing } from './wal-checkpoints.js';

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

/** The store's database operations over `pg`, with the checkpoints PGlite never makes itself. */
export function pgliteDatabase(pg: PGlite): Database {
  return checkpointing({
    ...queryable(pg),
    // `queryText` speaks to `pg` itself: the open transaction holds PGlite's locks meanwhile, and
    // its protocol entry point takes none.
    transaction: (fn) =>
      pg.transaction((tx) =>
        fn({ ...queryable(tx), queryText: (sql, params) => queryText(pg, sql, params) }),
      ),
    close: () => pg.close(),
    prepared: preparedStatements(pg),
  });
}

/** How long a call may stay pending while this thread idles on a nearly full disk. */
const IDLE_STUCK_MS = 2_000;
const TICK_MS = 250;

/**
 * The disk of `dir`, watched from the start (opening can hang too): `guard` fails a call with
 * `DiskFullError` naming `dir` on a full disk, or once it is found stuck there. PGlite runs on
 * this thread, so a call pending while the thread idles waits for nothing: it never settles once
 * PGlite could not write its WAL. A thread spinning inside PGlite is the watchdog's to end.
 */
function diskOf(dir: string) {
  let stuck = false;
  let failStuck: (error: Error) => void = () => {};
  const stuckCall = new Promise<never>((_, reject) => {
    failStuck = reject;
  });
  stuckCall.catch(() => {});
  const giveUp = () => {
    stuck = true;
    failStuck(new DiskFullError(dir));
  };
  const stopWatching = watchDisk(dir);
  let pending = 0;
  let idleSince = 0;
  let lastTick = 0;
  let ticker: ReturnType<typeof setInterval> | undefined;
  const tick = () => {
    const now = performance.now();
    // A late tick means the thread was busy (PGlite working), not idle.
    if (now - lastTick > 2 * TICK_MS) idleSince = now;
    lastTick = now;
    if (now - idleSince >= IDLE_STUCK_MS && freeBytes(dir) < WRITE_RESERVE_BYTES) giveUp();
  };
  const guard = async <T>(call: () => Promise<T>): Promise<T> => {
    if (pending++ === 0) {
      idleSince = lastTick = performance.now();
      ticker = setInterval(tick, TICK_MS);
      ticker.unref();
    }
    try {
      return await Promise.race([call(), stuckCall]);
    } catch (error) {
      if (error instanceof DiskFullError || !isDiskFull(error)) throw error;
      throw new DiskFullError(dir, { cause: error });
    } finally {
      if (--pending === 0) clearInterval(ticker);
    }
  };
  return { guard, stuck: () => stuck, stopWatching };
}

/**
 * `db` on `disk`: every call guarded, a write transaction refused while the disk is nearly full
 * (once `writesChecked()`), and `close` leaving a PGlite the watchdog ended as after a crash.
 */
function onDisk(
  db: Database,
  dir: string,
  disk: ReturnType<typeof diskOf>,
  writesChecked: () => boolean,
): Database {
  const { guard } = disk;
  return {
    query: (sql, params) => guard(() => db.query(sql, params)),
    exec: (sql) => guard(() => db.exec(sql)),
    prepared: (sql, params) => guard(() => db.prepared(sql, params)),
    async transaction(fn) {
      if (writesChecked()) ensureRoomToWrite(dir);
      return guard(() => db.transaction(fn));
    },
    // Closing checkpoints, which can wait for ever on a full disk like any write.
    close: async () => {
      if (!disk.stuck()) await guard(() => db.close());
    },
  };
}

/** PGlite's start parameters with `mb` megabytes of shared buffers (its default is 128). */
const withSharedBuffers = (mb: number) => ({
  startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${mb}MB`],
});

/**
 * PGlite's PostgreSQL on a data directory, with 32 MB of shared buffers instead of 128 MB: a bare
 * PGlite idled at ~430 MB RSS with the default against ~320 MB with this
 * (docs/design/2026-11-29-lookup-at-the-limit.md).
 */
const PGLITE_START = withSharedBuffers(32);

/**
 * An in-memory store's WAL is memory and recovers nothing (the database ends with the process):
 * 1 MB WAL segments instead of 16 MB, and tables that write no WAL (`IN_MEMORY_SETUP`). Its files
 * are memory too, so its buffer pool is a second copy of them: 16 MB, which PostgreSQL touches
 * whole (18 MB less resident than 32 MB; ingest and uncached lookups measured alike).
 */
const IN_MEMORY_START = { ...withSharedBuffers(16), initDbStartParams: ['--wal-segsize=1'] };

/**
 * Run on an in-memory store once the migrations made its tables: every table unlogged (there are no
 * foreign keys), then the two template databases dropped, 7 MB of memory each, since nothing
 * creates a database in it. One statement per call: DROP DATABASE runs alone.
 */
const IN_MEMORY_SETUP = [
  `DO $$
DECLARE t regclass;
BEGIN
  FOR t IN SELECT oid FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind = 'r' LOOP
    EXECUTE format('ALTER TABLE %s SET UNLOGGED', t);
  END LOOP;
END $$`,
  'ALTER DATABASE template0 IS_TEMPLATE false',
  'DROP DATABASE template0',
  'ALTER DATABASE template1 IS_TEMPLATE false',
  'DROP DATABASE template1',
];

/**
 * Opens (creating and migrating when needed) an embedded store. Takes one to a few seconds. With
 * `dataDir`, the directory is this process's until `close()` (`DataDirLockedError` while another
 * live process holds it), and a full disk fails with `DiskFullError` rather than hanging.
 */
export async function openEmbeddedStore(options: EmbeddedStoreOptions = {}): Promise<LookupStore> {
  const sqlOptions = options.cache === undefined ? {} : { cache: options.cache };
  const { dataDir } = options;
  if (dataDir === undefined) {
    const pg = await PGlite.create(IN_MEMORY_START);
    const store = await openSqlStore(pgliteDatabase(pg), sqlOptions);
    const setUp = async () => {
      for (const statement of IN_MEMORY_SETUP) await pg.exec(statement);
    };
    await setUp().catch(async (error: unknown) => {
      await store.close();
      throw error;
    });
    collectGarbage();
    return store;
  }
  const release = (() => {
    try {
      return lockDataDir(dataDir);
    } catch (error) {
      throw isDiskFull(error) ? new DiskFullError(dataDir, { cause: error }) : error;
    }
  })();
  const disk = diskOf(dataDir);
  let opened = false;
  const db = onDisk(
    pgliteDatabase(
      await disk
        .guard(() => PGlite.create(dataDir, PGLITE_START))
        .catch(async (error: unknown) => {
          await disk.stopWatching();
          release();
          // PGlite reports a disk too full to start as "failed to initialize properly".
          if (error instanceof DiskFullError || freeBytes(dataDir) >= WRITE_RESERVE_BYTES)
            throw error;
          throw new DiskFullError(dataDir, { cause: error });
        }),
    ),
    dataDir,
    disk,
    () => opened,
  );
  let closing: Promise<void> | undefined;
  const store = await openSqlStore(
    {
      ...db,
      // Closed once, whether by the store or by a failed migration.
      close: () => {
        closing ??= db.close().finally(async () => {
          await disk.stopWatching();
          release();
        });
        return closing;
      },
    },
    sqlOptions,
  );
  opened = true;
  collectGarbage();
  return store;
}
