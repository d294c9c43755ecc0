/**
 * The store interface every backend implements, and the aggregates it maintains on ingest (defined
 * with the lookup's contract, which @service/crm-sync's types share).
 */
import type { strictSchemas } from '@service/lookup-client';
import type { ObservedCompany } from '@service/lookup-contract';
import type * as z from 'zod/mini';
import type { ChangeNotice } from './changes.js';

export type {
  ActivityAggregate,
  CompanyAggregate,
  ContactAggregate,
  LinkedInTotals,
  ObservedCompany,
  PurchaseIntent,
  SessionSource,
} from '@service/lookup-contract';

/** One line (or item) that `ingest` refused, and why. */
export interface IngestRejection {
  /** 1-based position in the input: the line number of an NDJSON file. */
  line: number;
  /** Why it was refused, in words (e.g. a missing field or an invalid timestamp). */
  reason: string;
}

/** What one `ingest` call did, counted by outcome. */
export interface IngestResult {
  /** Events stored for the first time. */
  ingested: number;
  /** Events already stored with identical content (nothing changed). */
  unchanged: number;
  /** Events whose id was stored with different content: the new version replaced the old one. */
  replaced: number;
  /** Malformed items, with their position and reason; nothing of them was stored. */
  rejected: IngestRejection[];
}

/** Options of `LookupStore.ingest`. */
export interface IngestOptions {
  /**
   * Events per transaction (default 100,000, and at most 64 MiB of input). The first batch holds at
   * most 10,000 and each next one four times as many as the one before, up to this. A batch is stored
   * whole or not at all.
   */
  batchSize?: number;
  /** Called after each committed batch with the running counts. */
  onProgress?: (progress: IngestProgress) => void;
  /**
   * Called right after each batch commits (same tick) with what it changed, the same notices the
   * batch sent on `CHANGES_CHANNEL` inside its transaction.
   */
  onCommitted?: (notices: ChangeNotice[]) => void;
  /**
   * Called for each rejected item as it is rejected, with the item as it was given (an NDJSON
   * line's text, an `UnreadableLine`, an object); awaited, so it may write the item somewhere.
   */
  onRejected?: (rejection: IngestRejection, item: unknown) => void | Promise<void>;
  /** How far past now a timestamp may lie, in seconds (default 86 400: one day). */
  maxFutureSkewSeconds?: number;
}

/** The running counts `IngestOptions.onProgress` receives after each committed batch. */
export interface IngestProgress {
  /** Items read so far (lines, for NDJSON). */
  read: number;
  /** Events stored for the first time so far. */
  ingested: number;
  /** Events already stored with identical content so far. */
  unchanged: number;
  /** Events that replaced a stored version with different content so far. */
  replaced: number;
  /** Items refused so far. */
  rejected: number;
}

/**
 * What the store looks up: one workspace, and an email or a domain already normalised. Not the
 * same as `@service/lookup-client`'s `LookupQuery`, which is the request body a caller sends (raw
 * email or domain, no workspace: the server derives the workspace from the secret key).
 */
export interface LookupQuery {
  /** The workspace to read, the one the presented key opens. */
  workspace: string;
  /** Normalised email (see `normalizeEmail`). Takes precedence over `domain`. */
  email?: string;
  /** Normalised domain (see `normalizeDomain`). */
  domain?: string;
  /** Include each contact's `site_activity` and `linkedin_activity` (default false). */
  includeActivity?: boolean;
}

/**
 * The body of a successful lookup, exactly as sent on the wire: derived
 * from the wire contract, the strict zod schemas of @service/lookup-client, so the server's answer
 * type and the client's checks are one definition. Activity arrays are there only when asked for.
 */
export type LookupResult = {
  /** The company: its domain, name and the aggregates observed for it. */
  company: z.infer<(typeof strictSchemas)['companySchema']>;
  /** Its contacts (at most 10), each with its activity when the query asked for it. */
  contacts: Array<
    z.infer<(typeof strictSchemas)['contactSchema']> &
      Partial<
        Pick<
          z.infer<(typeof strictSchemas)['contactWithActivitySchema']>,
          'site_activity' | 'linkedin_activity'
        >
      >
  >;
};

/** Where observed activity lives. One SQL implementation backs PGlite and PostgreSQL. */
export interface LookupStore {
  /**
   * Stores events (objects, or NDJSON lines as strings; blank strings are skipped) and keeps the
   * aggregates current, one transaction per batch. Idempotent per `(workspace, type, id)`.
   */
  ingest(
    events: Iterable<unknown> | AsyncIterable<unknown>,
    options?: IngestOptions,
  ): Promise<IngestResult>;
  /** The lookup answer, or `null` when nothing matching was observed in the workspace. */
  lookup(query: LookupQuery): Promise<LookupResult | null>;
  /**
   * The same answer as JSON text exactly as the store rendered it, or its UTF-8 bytes; `null` when
   * there is none. Optional: when a store has it, the handler sends these bytes without a
   * parse/serialise round trip; without it, `lookup`'s answer is serialised. The built-in stores
   * hold it as a non-enumerable property, so a wrapper made by spreading one
   * (`{ ...store, lookup }`) drops it and its own `lookup` is the one used.
   */
  lookupText?(query: LookupQuery): Promise<string | Uint8Array | null>;
  /** Every observed company of a workspace (default `'default'`) with its contacts, ordered by domain, read in pages. */
  readAggregates(options?: { workspace?: string }): AsyncIterable<ObservedCompany>;
  /**
   * Calls `listener` with every committed change the store learns of (its own ingest, and on
   * PostgreSQL other processes' through the change log), and with `{ reset: true }` when what it
   * kept may no longer hold (its first read of the log, another server after a failover, a pause
   * longer than the log keeps rows). Returns the unsubscribe.
   */
  watch?(listener: (event: ChangeNotice | { reset: true }) => void): () => void;
  /** Whether the store can answer now (what `GET /readyz` reports). */
  readiness?(): Promise<StoreReadiness>;
  /** Running counts for metrics, read without touching the database. */
  stats?(): StoreStats;
  /** Ends the store's connections (or the embedded database); later calls reject with `StoreClosedError`. */
  close(): Promise<void>;
}

/** What `LookupStore.readiness` reports, check by check. */
export interface StoreReadiness {
  /** All of the checks below passed. */
  ready: boolean;
  /** The database answered a query. */
  store: 'ok' | 'unavailable';
  /** Every migration this version knows of is applied. */
  migrations: 'current' | 'behind' | 'unknown';
  /**
   * PostgreSQL with a cache: whether other processes' changes are heard: `listening` (a primary,
   * woken by `LISTEN`), `polling` (the change log read on a standby or through a pooler), `not
   * listening` (neither works now); `none` where there is no feed.
   */
  changeFeed: 'listening' | 'polling' | 'not listening' | 'none';
  /**
   * On a standby: how many seconds its replay is behind the primary (0 when caught up). Past the
   * store's bound (`maxReplayLagSeconds`) the store is not ready. Absent on a primary.
   */
  replayLagSeconds?: number;
}

/** Running counts of a store, as `LookupStore.stats` gives them to the metrics. */
export interface StoreStats {
  /** The answer cache: hits, misses, evictions, and the entries and bytes it holds now (zeros without one). */
  cache: { hits: number; misses: number; evictions: number; entries: number; bytes: number };
  /** Absent without a change feed. */
  changeFeed?: { listening: boolean; lastHeardSeconds: number | null };
  /**
   * The change log as read (absent without a change feed): the highest position read, and the
   * replay lag of the server read from (`null` on a primary).
   */
  changeLog?: { position: number | null; replayLagSeconds: number | null };
  /** Absent on the embedded store. */
  pool?: { inUse: number; waiting: number };
  /** Events by outcome, over every ingest this store ran. */
  ingested: { ingested: number; unchanged: number; replaced: number; rejected: number };
}
