/**
 * Checkpoints for PGlite. PGlite runs PostgreSQL in single-user mode, where no checkpointer runs
 * and WAL volume never asks for a checkpoint (`XLogWrite` in PostgreSQL's xlog.c requests one
 * only `IsUnderPostmaster`): `pg_wal` grew by about 1.45 MB per 1,000 events ingested, for as long
 * as the process ran (figures: docs/design/2026-11-29-lookup-at-the-limit.md). A checkpoint lets
 * PostgreSQL remove or recycle the segments before its redo point.
 */
import type { Database } from './sql/db.js';

/**
 * WAL written since the last checkpoint that calls for the next one. A checkpoint writes every
 * dirty page and makes the next change of each page log a full image, so not after every batch.
 */
export const CHECKPOINT_WAL_BYTES = 64 * 1024 * 1024;

const WAL_SINCE_CHECKPOINT =
  'SELECT (pg_current_wal_insert_lsn() - redo_lsn)::float8 AS bytes FROM pg_control_checkpoint()';

/** `db` with a checkpoint after each transaction that leaves too much WAL since the last one. */
export function checkpointing(db: Database): Database {
  return {
    ...db,
    async transaction(fn) {
      const result = await db.transaction(fn);
      const [since] = await db.query<{ bytes: number }>(WAL_SINCE_CHECKPOINT);
      if (since !== undefined && since.bytes >= CHECKPOINT_WAL_BYTES) await db.exec('CHECKPOINT');
      return result;
    },
  };
}
