/** The one SQL implementation of `LookupStore`, over any `Database` (PGlite or pg). */

import { withAnswerText } from '../answer-text.js';
import { isUnavailable, StoreClosedError, StoreUnavailableError } from '../errors.js';
import type { LookupQuery, LookupResult, LookupStore } from '../types.js';
import { readAggregates } from './aggregates.js';
import type { Database } from './db.js';
import { ingestEvents } from './ingest.js';
import { lookupAnswer } from './lookup.js';
import { migrate } from './migrations.js';

/** Runs `fn`, turning "database unreachable" driver errors into `StoreUnavailableError`. */
async function guarded<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if (isUnavailable(error)) throw new StoreUnavailableError({ cause: error });
    throw error;
  }
}

/** Migrates `db` and serves the store from it; `db` is closed when the migration fails. */
export async function openSqlStore(db: Database): Promise<LookupStore> {
  try {
    await guarded(() => migrate(db));
  } catch (error) {
    await db.close();
    throw error;
  }
  let closed = false;
  const open = () => {
    if (closed) throw new StoreClosedError();
  };
  const answerText = async (query: LookupQuery) => {
    open();
    return (await guarded(() => lookupAnswer(db, query)))?.body ?? null;
  };
  return {
    ingest(events, options) {
      open();
      return guarded(() => ingestEvents(db, events, options));
    },
    lookup: withAnswerText(
      async (query) => {
        const text = await answerText(query);
        return text === null ? null : (JSON.parse(text) as LookupResult);
      },
      (query) => answerText(query),
    ),
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
      await db.close();
    },
  };
}
