/** The one SQL implementation of `LookupStore`, over any `Database` (PGlite or pg). */

import { isUnavailable, StoreClosedError, StoreUnavailableError } from '../../model/errors.js';
import type { LookupQuery, LookupResult, LookupStore } from '../../model/types.js';
import { AnswerCache, type AnswerCacheOptions, cacheWanted } from '../cache.js';
import type { ChangeFeed, StoreEvent } from '../change-feed.js';
import { readAggregates } from './aggregates.js';
import type { Database } from './db.js';
import { ingestEvents } from './ingest.js';
import { lookupAnswer } from './lookup.js';
import { migrate } from './migrations.js';

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
  /** Commits of other processes (PostgreSQL `LISTEN`); without one, only this process writes. */
  feed?: ChangeFeed;
}

/** Migrates `db` and serves the store from it; `db` is closed when the migration fails. */
export async function openSqlStore(
  db: Database,
  options: SqlStoreOptions = {},
): Promise<LookupStore> {
  try {
    await guarded(() => migrate(db));
  } catch (error) {
    await db.close();
    throw error;
  }
  const { feed } = options;
  const cache = new AnswerCache(cacheWanted(options.cache) ? options.cache : { maxBytes: 0 });
  const watchers = new Set<(event: StoreEvent) => void>();
  const emit = (event: StoreEvent) => {
    cache.apply(event);
    for (const watcher of watchers) watcher(event);
  };
  feed?.start(emit);
  let closed = false;
  const open = () => {
    if (closed) throw new StoreClosedError();
  };
  const answerText = async (query: LookupQuery): Promise<string | Uint8Array | null> => {
    open();
    if (!cache.enabled) return (await guarded(() => lookupAnswer(db, query)))?.body ?? null;
    if (feed === undefined || feed.fresh()) {
      const kept = cache.get(query);
      if (kept !== undefined) return kept;
    }
    const ticket = cache.begin(query);
    const answer = await guarded(() => lookupAnswer(db, query));
    // Kept as UTF-8 bytes: each hit is then sent without encoding the text again.
    const bytes = answer === null ? null : Buffer.from(answer.body);
    cache.fill(ticket, query, bytes, answer ?? {});
    return bytes;
  };
  return {
    ingest(events, options) {
      open();
      return guarded(() =>
        ingestEvents(db, events, {
          ...options,
          // The cache learns of this process's commits in the same tick, before ingest goes on.
          onCommitted: (notices) => {
            for (const notice of notices) emit(notice);
            options?.onCommitted?.(notices);
          },
        }),
      );
    },
    async lookup(query) {
      const text = await answerText(query);
      if (text === null) return null;
      return JSON.parse(typeof text === 'string' ? text : UTF8.decode(text)) as LookupResult;
    },
    lookupText: answerText,
    watch(watcher) {
      watchers.add(watcher);
      return () => {
        watchers.delete(watcher);
      };
    },
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
    },
  };
}
