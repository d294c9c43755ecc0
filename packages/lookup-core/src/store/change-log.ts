/**
 * Commits of any process, read from the change log (`service_lookup_changes`) that ingest writes in
 * each batch's transaction. Read by query, so it works wherever the store reads: the primary, a
 * hot standby (where `LISTEN` is refused and `NOTIFY` is not replicated), or through PgBouncer in
 * transaction mode. A change reaches the cache within the replication lag plus `pollMs`.
 *
 * Sequence numbers are handed out before commit, so a row may become visible after a row with a
 * higher position (the outbox hazard): reading "above the last position" would skip it. Each row
 * carries its transaction's id (`xid8`); every transaction below the snapshot's xmin has ended, so
 * rows below it are final. Each poll reads every row at or above the last xmin (the horizon),
 * emits those not emitted yet, and moves the horizon up; a row of a transaction still open is
 * emitted when it commits, whatever its position. `pg_current_snapshot()` works in recovery: a
 * standby's snapshot counts as open every transaction of the primary it has not seen end
 * (https://www.postgresql.org/docs/15/functions-info.html#FUNCTIONS-PG-SNAPSHOT).
 *
 * When `wakeUp` is given (a `LISTEN` feed, on a primary) a notification polls at once.
 */
import { decodeChange } from '../model/changes.js';
import type { ChangeFeed, StoreEvent } from './change-feed.js';
import type { Database } from './sql/db.js';

/** What the reader knows of the log and of the server it reads from. */
export interface ChangeLogState {
  /** The highest log position read, `null` before the first row. */
  position: number | null;
  /** Seconds the server's replay is behind (0 when caught up), `null` on a primary. */
  replayLagSeconds: number | null;
}

/** A change feed that reads the change log. */
export interface ChangeLogFeed extends ChangeFeed {
  /** The log position read and the server's replay lag, as of the last poll. */
  log(): ChangeLogState;
  /** Whether a `LISTEN` wake-up is part of the feed (`listening()` then says whether it listens). */
  woken(): boolean;
}

export interface ChangeLogOptions {
  /** Polls of the log, in milliseconds (default 100). */
  pollMs?: number;
  /** Cached answers are trusted while the last poll sent is younger than this (default 1000). */
  maxStalenessMs?: number;
  /** A feed whose notices only mean "poll now" (`LISTEN` on a primary). */
  wakeUp?: ChangeFeed;
}

/**
 * Rows to be emitted are those at or above the horizon `$1` (the snapshot's xmin when null: a first
 * poll needs only the rows of transactions still settling); the horizon, the replay lag and the
 * server's address come from the same statement, so the same snapshot.
 */
const POLL = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text AS horizon,
  coalesce((SELECT json_agg(json_build_array(c.position::text, c.xid::text, c.notice) ORDER BY c.position)
    FROM service_lookup_changes c
    WHERE c.xid >= coalesce($1::xid8, pg_snapshot_xmin(pg_current_snapshot()))), '[]'::json)::text AS rows,
  CASE WHEN NOT pg_is_in_recovery() THEN NULL
    WHEN pg_last_wal_receive_lsn() = pg_last_wal_replay_lsn() THEN 0
    ELSE extract(epoch FROM now() - pg_last_xact_replay_timestamp()) END::float8 AS lag,
  coalesce(host(inet_server_addr()), 'local') || ':' || coalesce(inet_server_port(), 0) AS server`;

interface PollRow {
  horizon: string;
  rows: string;
  lag: number | null;
  server: string;
}

/** Log rows are pruned after this long (ingest prunes; `ingest-sql.ts`). */
export const CHANGE_LOG_RETENTION_MS = 15 * 60_000;
const RESET: StoreEvent = { reset: true };
const MAX_BACKOFF_MS = 5_000;

/** Reads the change log of `db` every `pollMs` (and when `wakeUp` hears something). */
export function followChanges(db: Database, options: ChangeLogOptions = {}): ChangeLogFeed {
  const pollMs = options.pollMs ?? 100;
  const maxStalenessMs = options.maxStalenessMs ?? 1_000;
  const { wakeUp } = options;
  let emit: (event: StoreEvent) => void = () => {};
  /** Transactions below it have ended; `undefined` until the first poll. */
  let horizon: bigint | undefined;
  /** Rows at or above the horizon already emitted: position -> xid. */
  const emitted = new Map<string, bigint>();
  let server: string | undefined;
  let polledUpTo = Number.NEGATIVE_INFINITY;
  /** Set when the server may be gone (a failed poll, the wake-up's connection lost) until a poll succeeds. */
  let doubted = false;
  let state: ChangeLogState = { position: null, replayLagSeconds: null };
  let timer: NodeJS.Timeout | undefined;
  let backoffMs = pollMs;
  let running: Promise<void> | undefined;
  let again = false;
  let closed = false;

  /** Applies one poll's answer: the rows not emitted yet, then the new horizon. */
  function apply(row: PollRow, sentAt: number) {
    const next = BigInt(row.horizon);
    // Another server (a failover), or a pause longer than the log keeps rows: what was kept may
    // hold data that is gone, or have missed a change. Everything starts afresh.
    const gap = sentAt - polledUpTo > CHANGE_LOG_RETENTION_MS / 2;
    const fresh = horizon === undefined || row.server !== server || gap;
    if (fresh) emitted.clear();
    for (const [position, xid, notice] of JSON.parse(row.rows) as string[][]) {
      if (position === undefined || xid === undefined || emitted.has(position)) continue;
      emitted.set(position, BigInt(xid));
      state = { ...state, position: Math.max(state.position ?? 0, Number(position)) };
      // A notice that cannot be read names nothing precisely: everything is dropped instead.
      if (!fresh) emit((notice && decodeChange(notice)) || RESET);
    }
    if (fresh) emit(RESET);
    horizon = horizon === undefined || fresh || next > horizon ? next : horizon;
    for (const [position, xid] of emitted) if (xid < (horizon as bigint)) emitted.delete(position);
    server = row.server;
    polledUpTo = sentAt;
    doubted = false;
    state = { ...state, replayLagSeconds: row.lag === null ? null : Number(row.lag) };
  }

  async function poll() {
    const sentAt = performance.now();
    try {
      const [row] = await db.query<PollRow>(POLL, [horizon === undefined ? null : String(horizon)]);
      if (row !== undefined && !closed) apply(row, sentAt);
      backoffMs = pollMs;
    } catch {
      // Not read: kept answers wait for the next poll that succeeds.
      doubted = true;
      backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
    }
  }

  /** Polls now, or right after the poll running now (one at a time). */
  function pollSoon() {
    if (closed) return;
    if (running !== undefined) {
      again = true;
      return;
    }
    clearTimeout(timer);
    running = poll().finally(() => {
      running = undefined;
      if (again) {
        again = false;
        pollSoon();
      } else if (!closed) timer = setTimeout(pollSoon, backoffMs);
    });
  }

  return {
    start(listener) {
      emit = listener;
      wakeUp?.start((event) => {
        // The wake-up lost its connection (or has it back): the server may be gone, so kept
        // answers are not trusted until a poll succeeds again.
        if ('reset' in event) doubted = true;
        pollSoon();
      });
      pollSoon();
    },
    fresh: () => !doubted && performance.now() - polledUpTo < maxStalenessMs,
    listening: () => wakeUp?.listening() ?? false,
    woken: () => wakeUp !== undefined,
    heardAgoMs: () =>
      polledUpTo === Number.NEGATIVE_INFINITY ? null : performance.now() - polledUpTo,
    log: () => state,
    async close() {
      closed = true;
      clearTimeout(timer);
      await wakeUp?.close();
      await running;
    },
  };
}
