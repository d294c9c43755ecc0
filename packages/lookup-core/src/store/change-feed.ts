/**
 * Commits made by other processes, heard through PostgreSQL `LISTEN` on a connection of its own.
 * The store uses it only to wake the change log's reader (`change-log.ts`), which is what the cache
 * trusts; `StoreEvent` and the `ChangeFeed` interface are shared by both.
 *
 * The feed says whether what it has heard is fresh: every `heartbeatMs` it runs `SELECT 1` on the
 * listening connection, and PostgreSQL sends a session the notifications of every commit it could
 * see before it answers that session's next query. So when a heartbeat sent at `t` returns, every
 * commit finished before `t` has been heard; the feed is fresh while the last such `t` is less
 * than `maxStalenessMs` ago. When the connection drops (or a heartbeat fails), the feed reports a
 * reset (its listener clears what it kept), reconnects with backoff, and reports a reset again
 * once it listens anew, since notifications sent in between were lost.
 */
import pg from 'pg';
import { CHANGES_CHANNEL, type ChangeNotice, decodeChange } from '../model/changes.js';

export type StoreEvent = ChangeNotice | { reset: true };

export interface ChangeFeed {
  /** Starts listening; `emit` gets every notice heard and every reset. */
  start(emit: (event: StoreEvent) => void): void;
  /** Whether every commit older than `maxStalenessMs` has been heard. */
  fresh(): boolean;
  /** Whether the feed's connection listens now. */
  listening(): boolean;
  /** Milliseconds since the last heartbeat sent that returned, `null` before the first. */
  heardAgoMs(): number | null;
  close(): Promise<void>;
}

export interface ChangeFeedOptions {
  heartbeatMs?: number;
  maxStalenessMs?: number;
}

const RESET: StoreEvent = { reset: true };
/** How the change feed's connections (`LISTEN`, and the change log's poll) show in `pg_stat_activity`. */
export const FEED_APPLICATION_NAME = 'service-lookup changes';
const MAX_BACKOFF_MS = 5_000;

export function listenForChanges(
  config: pg.ClientConfig,
  options: ChangeFeedOptions = {},
): ChangeFeed {
  const heartbeatMs = options.heartbeatMs ?? 250;
  const maxStalenessMs = options.maxStalenessMs ?? 1_000;
  let emit: (event: StoreEvent) => void = () => {};
  let client: pg.Client | undefined;
  let heardUpTo = Number.NEGATIVE_INFINITY;
  let timer: NodeJS.Timeout | undefined;
  let backoffMs = 100;
  let closed = false;
  /** Whether `client` listens (a failed attempt to connect has nothing to reset). */
  let listening = false;

  const schedule = (fn: () => void, ms: number) => {
    clearTimeout(timer);
    if (!closed) timer = setTimeout(fn, ms);
  };

  function drop(lost: pg.Client) {
    if (client !== lost) return;
    client = undefined;
    heardUpTo = Number.NEGATIVE_INFINITY;
    if (listening) emit(RESET);
    listening = false;
    lost.end().catch(() => {});
    schedule(connect, backoffMs);
    backoffMs = Math.min(backoffMs * 2, MAX_BACKOFF_MS);
  }

  async function heartbeat(current: pg.Client) {
    const sentAt = performance.now();
    try {
      await current.query('SELECT 1');
    } catch {
      drop(current);
      return;
    }
    if (client !== current) return;
    heardUpTo = sentAt;
    schedule(() => void heartbeat(current), heartbeatMs);
  }

  async function connect() {
    if (closed) return;
    const next = new pg.Client({ ...config, application_name: FEED_APPLICATION_NAME });
    client = next;
    next.on('error', () => drop(next));
    next.on('end', () => drop(next));
    next.on('notification', (message) => {
      if (client !== next || message.channel !== CHANGES_CHANNEL) return;
      // A notice that cannot be read names nothing precisely: everything is dropped instead.
      emit((message.payload && decodeChange(message.payload)) || RESET);
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch {
      drop(next);
      return;
    }
    if (client !== next) return;
    backoffMs = 100;
    listening = true;
    // Whatever was kept before this connection listened may have missed a notice.
    emit(RESET);
    await heartbeat(next);
  }

  return {
    start(listener) {
      emit = listener;
      void connect();
    },
    fresh: () => performance.now() - heardUpTo < maxStalenessMs,
    listening: () => listening,
    heardAgoMs: () =>
      heardUpTo === Number.NEGATIVE_INFINITY ? null : performance.now() - heardUpTo,
    async close() {
      closed = true;
      clearTimeout(timer);
      const current = client;
      client = undefined;
      await current?.end().catch(() => {});
    },
  };
}
