/**
 * Following a list of PostgreSQL servers as libpq does
 * (https://www.postgresql.org/docs/15/libpq-connect.html#LIBPQ-CONNECT-TARGET-SESSION-ATTRS):
 * the hosts are tried in order and the first whose state matches `target_session_attrs` is used
 * (`prefer-standby`: a standby first, else any). The store's pool then connects to that server
 * alone; once it is lost (a connection error, or a write refused as read-only where a read-write
 * server was asked for) the next query chooses again, so a promoted standby is found without a
 * restart.
 */
import pg from 'pg';
import type { ServerList, TargetSessionAttrs } from './libpq-url.js';

/** What a server said of itself when tried. */
interface ServerState {
  inRecovery: boolean;
  readOnly: boolean;
}

/** Whether a server in `state` satisfies `target`, with libpq's meaning of each value. */
function satisfies(target: TargetSessionAttrs, state: ServerState): boolean {
  switch (target) {
    case 'any':
      return true;
    case 'read-write':
      return !state.readOnly;
    case 'read-only':
      return state.readOnly;
    case 'primary':
      return !state.inRecovery;
    default:
      return state.inRecovery;
  }
}

const describeState = (s: ServerState) =>
  s.inRecovery ? 'a standby (in recovery)' : s.readOnly ? 'read-only' : 'a read-write primary';

/**
 * No listed server matched: SQLSTATE 08001 (sqlclient_unable_to_establish_sqlconnection, as libpq
 * reports it), so the store counts it as unavailable and answers 503 until one does.
 */
export class NoMatchingServerError extends Error {
  /** SQLSTATE 08001. */
  readonly code = '08001';
}

/** Connects to `url`, asks the server's state, and disconnects. */
async function probe(url: string, connectTimeoutMs: number): Promise<ServerState> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: connectTimeoutMs,
  });
  client.on('error', () => {});
  try {
    await client.connect();
    const { rows } = await client.query<{ recovery: boolean; ro: string }>(
      "SELECT pg_is_in_recovery() AS recovery, current_setting('transaction_read_only') AS ro",
    );
    return { inRecovery: rows[0]?.recovery === true, readOnly: rows[0]?.ro === 'on' };
  } finally {
    await client.end().catch(() => {});
  }
}

/** The index of the first server of `list` matching its target; throws `NoMatchingServerError`. */
export async function chooseServer(list: ServerList, connectTimeoutMs: number): Promise<number> {
  const target = list.targetSessionAttrs;
  const notes: string[] = [];
  const states: Array<ServerState | undefined> = [];
  for (const [i, { host, port }] of list.hosts.entries()) {
    try {
      const state = await probe(list.urlFor(i), connectTimeoutMs);
      states[i] = state;
      if (satisfies(target, state)) return i;
      notes.push(`${host}:${port} is ${describeState(state)}`);
    } catch (error) {
      notes.push(`${host}:${port}: ${(error as Error).message}`);
    }
  }
  // prefer-standby: with no standby reachable, the first server that answered will do.
  const answered = states.findIndex((s) => s !== undefined);
  if (target === 'prefer-standby' && answered !== -1) return answered;
  throw new NoMatchingServerError(
    `no server matches target_session_attrs=${target}: ${notes.join('; ')}`,
  );
}

/** The pool of the server in use. */
export interface ChosenServer {
  pool: pg.Pool;
  /** `host:port` of the server. */
  server: string;
}

/**
 * A pool on whichever server of the list matches: chosen on first use, chosen again after
 * `lost()`. Concurrent callers share one choice.
 */
export class ServerFollower {
  readonly #list: ServerList;
  readonly #poolOptions: pg.PoolConfig;
  #current: Promise<ChosenServer> | undefined;
  #settled: ChosenServer | undefined;
  #closed = false;
  readonly #ignore = () => {};

  constructor(list: ServerList, poolOptions: pg.PoolConfig) {
    this.#list = list;
    this.#poolOptions = poolOptions;
  }

  /** The server in use, choosing one when there is none. */
  current(): Promise<ChosenServer> {
    if (this.#current === undefined) {
      const choosing = this.#choose();
      this.#current = choosing;
      // A failed choice is not kept: the next call tries the list again.
      choosing.then(
        (chosen) => {
          this.#settled = chosen;
        },
        () => {
          if (this.#current === choosing) this.#current = undefined;
        },
      );
    }
    return this.#current;
  }

  async #choose(): Promise<ChosenServer> {
    const timeout = this.#poolOptions.connectionTimeoutMillis ?? 5_000;
    const i = await chooseServer(this.#list, timeout);
    const pool = new pg.Pool({ ...this.#poolOptions, connectionString: this.#list.urlFor(i) });
    // An idle client losing its server must not crash the process.
    pool.on('error', this.#ignore);
    const { host, port } = this.#list.hosts[i] ?? { host: '', port: 0 };
    return { pool, server: `${host}:${port}` };
  }

  /** `chosen` failed: the next query chooses again (its pool ends once its clients are back). */
  lost(chosen: ChosenServer): void {
    if (this.#settled !== chosen) return;
    this.#settled = undefined;
    this.#current = undefined;
    void chosen.pool.end().catch(() => {});
  }

  /** The pool's connections in use and queries waiting (zeros while none is chosen). */
  stats(): { inUse: number; waiting: number } {
    const pool = this.#settled?.pool;
    return pool === undefined
      ? { inUse: 0, waiting: 0 }
      : { inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount };
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const chosen = await this.#current?.catch(() => undefined);
    await chosen?.pool.end();
  }
}
