/**
 * Ingest: raw events are kept, and the company and contact aggregates are kept current in the same
 * transaction, one transaction per batch.
 *
 * New events are added to the aggregates (sums add, first/last seen widen, distinct sets grow).
 * An id re-sent with different content replaces the old version: the old row is deleted, the new
 * one inserted, and every company and contact either version touched is recomputed from its raw
 * events, so the aggregates reflect the new version exactly once. Same content changes nothing.
 */

import { CHANGES_CHANNEL, encodeChange, splitChange } from '../../model/changes.js';
import { LookupCoreError } from '../../model/errors.js';
import { type ParseOptions, parseEvent } from '../../model/events.js';
import type {
  IngestOptions,
  IngestProgress,
  IngestRejection,
  IngestResult,
} from '../../model/types.js';
import { UnreadableLine } from '../../model/unreadable-line.js';
import {
  BATCH,
  type BatchRow,
  batchParameters,
  EVENT_COLUMNS,
  type EventVersion,
  type ParsedRow,
  RowEncoder,
  ValidatedLines,
} from './batch-rows.js';
import type { Database, Queryable, Transaction } from './db.js';

/**
 * The events a statement adds to the aggregates: a query yielding event rows (with `page_count`),
 * read through the CTE `batch`.
 */
type Source = string;
/**
 * The columns the aggregates read of each event (`AGGREGATED` rows): the batch keeps only these,
 * not the lists and text the aggregates never read.
 */
const AGGREGATED = `workspace, type, id, domain, company_name, industry, email, contact_name, title,
  visitor_id, seen_from, seen_to, active_time, page_count, signals, intent, impressions, clicks,
  likes, shares, comments`;
/**
 * The order a batch's events are inserted in: company by company, so the heap keeps each
 * company's events together and the per-company index takes its new keys in order. The domain
 * leads the sort key: a batch usually holds one workspace, and a leading key that is the same in
 * every row leaves the sort's abbreviated keys (its first bytes, compared as one integer) telling
 * nothing apart (figures: docs/design/2026-11-27-measured-choices.md).
 */
const IN_COMPANY_ORDER = 'ORDER BY domain, workspace, seen_from';
/** Every stored event of the companies / contacts listed as JSON in `$1` (recomputation). */
const STORED_OF_COMPANIES: Source = `SELECT e.* FROM events e
  JOIN jsonb_to_recordset($1::jsonb) AS k(workspace text, domain text) ON e.workspace = k.workspace AND e.domain = k.domain`;
const STORED_OF_CONTACTS: Source = `SELECT e.* FROM events e
  JOIN jsonb_to_recordset($1::jsonb) AS k(workspace text, email text) ON e.workspace = k.workspace AND e.email = k.email`;

const ACTIVITY_COLUMNS =
  'sessions, active_seconds, page_views, high_intent_sessions, first_seen, last_seen, impressions, clicks, likes, shares, comments';
const ACTIVITY_SELECT = `count(*) FILTER (WHERE e.type = 'session'), coalesce(sum(e.active_time), 0),
  coalesce(sum(e.page_count), 0), count(*) FILTER (WHERE e.intent >= 2), min(e.seen_from), max(e.seen_to),
  sum(e.impressions), sum(e.clicks), sum(e.likes), sum(e.shares), sum(e.comments)`;
const ACTIVITY_ADD = `sessions = t.sessions + excluded.sessions,
  active_seconds = t.active_seconds + excluded.active_seconds,
  page_views = t.page_views + excluded.page_views,
  high_intent_sessions = t.high_intent_sessions + excluded.high_intent_sessions,
  first_seen = least(t.first_seen, excluded.first_seen),
  last_seen = greatest(t.last_seen, excluded.last_seen),
  impressions = t.impressions + excluded.impressions, clicks = t.clicks + excluded.clicks,
  likes = t.likes + excluded.likes, shares = t.shares + excluded.shares, comments = t.comments + excluded.comments`;

/** Latest non-null value of a profile column, by event time. */
const latest = (column: string) =>
  `(array_agg(e.${column} ORDER BY e.seen_from DESC) FILTER (WHERE e.${column} IS NOT NULL))[1]`;
/** A profile field keeps the value of the most recent event that carried one. */
const keepLatest = (column: string) => `${column} = CASE
  WHEN t.profile_at IS NULL OR excluded.profile_at >= t.profile_at THEN coalesce(excluded.${column}, t.${column})
  ELSE coalesce(t.${column}, excluded.${column}) END`;

/**
 * The data-modifying parts of one statement, all reading `batch` and the same snapshot. New
 * visitors are those the visitor insert added (its RETURNING rows).
 */
const PARTS = {
  companies: `visitors_added AS (
INSERT INTO company_visitors (workspace, domain, visitor_id)
-- Neither DISTINCT nor sorted: a pair met twice in the batch is added once (the second conflicts
-- with the first and is not returned), and the batch already comes company by company, as it was
-- inserted. Grouping and sorting the pairs was 0.3 s of a 3.1 s 100,000-event statement.
SELECT e.workspace, e.domain, e.visitor_id FROM batch e WHERE e.visitor_id IS NOT NULL
ON CONFLICT DO NOTHING RETURNING workspace, domain),
companies_added AS (
INSERT INTO companies AS t (workspace, domain, name, industry, profile_at, ${ACTIVITY_COLUMNS}, visitors)
SELECT a.*, coalesce(v.added, 0) FROM (
  SELECT e.workspace, e.domain, ${latest('company_name')}, ${latest('industry')},
    max(e.seen_from) FILTER (WHERE e.company_name IS NOT NULL OR e.industry IS NOT NULL),
    ${ACTIVITY_SELECT}
  FROM batch e
  GROUP BY e.workspace, e.domain
) a LEFT JOIN (
  -- Visitors new to the company: the rows the insert above actually added.
  SELECT workspace, domain, count(*) AS added FROM visitors_added GROUP BY workspace, domain
) v USING (workspace, domain)
ON CONFLICT (workspace, domain) DO UPDATE SET ${keepLatest('name')}, ${keepLatest('industry')},
  profile_at = greatest(t.profile_at, excluded.profile_at), visitors = t.visitors + excluded.visitors,
  ${ACTIVITY_ADD}),
company_signals_added AS (
INSERT INTO company_signals (workspace, domain, signal)
-- Most events carry no signal: passing over their empty lists before the set-returning call took
-- this insert from 149 to 82 ms per 100,000-event batch (1,000,000 sessions, auto_explain).
SELECT DISTINCT e.workspace, e.domain, s.signal FROM batch e
CROSS JOIN LATERAL json_array_elements_text(e.signals) AS s(signal) WHERE e.signals::text <> '[]'
ON CONFLICT DO NOTHING)`,
  contacts: `contacts_added AS (
INSERT INTO contacts AS t (workspace, email, company_domain, company_at, name, title, profile_at, ${ACTIVITY_COLUMNS})
SELECT e.workspace, e.email, (array_agg(e.domain ORDER BY e.seen_from DESC))[1], max(e.seen_from),
  ${latest('contact_name')}, ${latest('title')},
  max(e.seen_from) FILTER (WHERE e.contact_name IS NOT NULL OR e.title IS NOT NULL), ${ACTIVITY_SELECT}
FROM batch e WHERE e.email IS NOT NULL
GROUP BY e.workspace, e.email
ON CONFLICT (workspace, email) DO UPDATE SET
  company_domain = CASE WHEN excluded.company_at >= t.company_at THEN excluded.company_domain ELSE t.company_domain END,
  company_at = greatest(t.company_at, excluded.company_at),
  ${keepLatest('name')}, ${keepLatest('title')}, profile_at = greatest(t.profile_at, excluded.profile_at),
  ${ACTIVITY_ADD}),
contact_signals_added AS (
INSERT INTO contact_signals (workspace, email, signal)
SELECT DISTINCT e.workspace, e.email, s.signal FROM batch e
CROSS JOIN LATERAL json_array_elements_text(e.signals) AS s(signal)
WHERE e.email IS NOT NULL AND e.signals::text <> '[]'
ON CONFLICT DO NOTHING)`,
} as const;

/** One statement: the source is read once, every part applied from it, then `result`. */
const apply = (source: Source, parts: Array<keyof typeof PARTS>, result = 'SELECT 1') =>
  `WITH batch AS MATERIALIZED (${source}), ${parts.map((p) => PARTS[p]).join(',\n')} ${result}`;

/**
 * Stores the events whose id is new and adds exactly those to the aggregates (the rows the insert
 * returns); answers the keys it did not store (`$1`, `$2`, `$3` are the batch's workspaces, types
 * and ids), usually none, so a fresh batch sends nothing back. An id already stored is left for
 * `writeBatch` to compare. The keys are compared only when the insert stored fewer rows than the
 * batch holds (a one-time filter): comparing them always was a twentieth of a fresh batch's time.
 */
const WRITE_NEW = apply(
  `INSERT INTO events (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM (${BATCH}) AS b ${IN_COMPANY_ORDER}
  ON CONFLICT (workspace, type, id) DO NOTHING RETURNING ${AGGREGATED}`,
  ['companies', 'contacts'],
  `SELECT k.workspace, k.type, k.id FROM unnest($1::text[], $2::text[], $3::text[]) AS k(workspace, type, id)
  WHERE (SELECT count(*) FROM batch) < cardinality($3::text[])
  AND NOT EXISTS (SELECT 1 FROM batch b WHERE b.workspace = k.workspace AND b.type = k.type AND b.id = k.id)`,
);
/**
 * A batch of ids not stored yet: every row inserted and added, with no check for a stored id per
 * row (figures: docs/design/2026-11-27-measured-choices.md). One stored id makes the insert
 * fail (`isFreshConflict`), and the batch is written again with `WRITE_NEW`.
 */
const WRITE_FRESH = apply(
  `INSERT INTO events (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM (${BATCH}) AS b ${IN_COMPANY_ORDER} RETURNING ${AGGREGATED}`,
  ['companies', 'contacts'],
  // Answers, as `WRITE_NEW` does, the keys not stored: none.
  'SELECT workspace, type, id FROM batch WHERE false',
);
/** A unique violation of the events' primary key: the batch held an id already stored. */
const isFreshConflict = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === '23505' &&
  (error as { constraint?: unknown }).constraint === 'events_pkey';
/** Stores new versions of stored ids; the recomputation counts them. */
const WRITE_REPLACEMENTS = `INSERT INTO events (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM (${BATCH}) AS b ${IN_COMPANY_ORDER}`;
const RECOMPUTE_COMPANIES = apply(STORED_OF_COMPANIES, ['companies']);
const RECOMPUTE_CONTACTS = apply(STORED_OF_CONTACTS, ['contacts']);

/** `$1`, `$2`, `$3`: the workspaces, types and ids of the batch, as arrays. */
const FIND_EXISTING = `SELECT e.workspace, e.type, e.id, e.hash, e.domain, e.email
  FROM events e JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(workspace, type, id)
  ON e.workspace = k.workspace AND e.type = k.type AND e.id = k.id`;
const DELETE_EVENTS = `DELETE FROM events e USING jsonb_to_recordset($1::jsonb) AS k(workspace text, type text, id text)
  WHERE e.workspace = k.workspace AND e.type = k.type AND e.id = k.id`;
const DELETE_COMPANIES = ['companies', 'company_visitors', 'company_signals'].map(
  (
    table,
  ) => `DELETE FROM ${table} x USING jsonb_to_recordset($1::jsonb) AS k(workspace text, domain text)
  WHERE x.workspace = k.workspace AND x.domain = k.domain`,
);
const DELETE_CONTACTS = ['contacts', 'contact_signals'].map(
  (
    table,
  ) => `DELETE FROM ${table} x USING jsonb_to_recordset($1::jsonb) AS k(workspace text, email text)
  WHERE x.workspace = k.workspace AND x.email = k.email`,
);

/**
 * Settings of a batch's transaction.
 * - Memory for each sort, hash and kept row set: a batch's new rows (up to 64 MiB of input) and
 *   their groupings outgrow the default 4 MB, and spilling them to temporary files costs the
 *   embedded store a round of file system calls through JavaScript.
 * - No JIT: planned for its arrays, with the planner's guess for the signal lists (100 rows an
 *   event), a batch statement's cost is in the millions, past `jit_optimize_above_cost`, and
 *   PostgreSQL compiled it afresh each time (JIT code is not kept). PGlite has no JIT; the setting
 *   exists there too and changes nothing.
 * - Generic plans: the statements are prepared once per connection (`store/postgres.ts`), but the first
 *   five executions are planned again for their parameters, and planning around a batch's arrays
 *   took most of the Bind message's time; PostgreSQL would settle on the generic plan from the
 *   sixth anyway (figures: docs/design/2026-11-27-measured-choices.md).
 */
const BATCH_SETTINGS = `SELECT set_config('work_mem', '64MB', true), set_config('jit', 'off', true),
  set_config('plan_cache_mode', 'force_generic_plan', true)`;
/** Sends every payload of `$2` on channel `$1`, in one round trip. */
const NOTIFY = 'SELECT pg_notify($1, payload) FROM unnest($2::text[]) AS payload';

/** A stored version of an event the batch sends again. */
type Existing = EventVersion;

type EventKey = { workspace: string; type: string; id: string };
/** An event's key as one string: NUL cannot occur in stored text (`parseEvent` rejects it). */
const eventKey = (e: EventKey) => `${e.workspace}\0${e.type}\0${e.id}`;

/**
 * Stores one batch (ids unique within it), given as its events and their `batchParameters`;
 * returns how many were new, unchanged, replaced. `allNew` writes it with `WRITE_FRESH`, which
 * fails (`isFreshConflict`) when an id is already stored.
 */
async function writeBatch(
  tx: Transaction,
  events: BatchRow[],
  parameters: string[],
  allNew: boolean,
) {
  await tx.query(BATCH_SETTINGS);
  const kept = await tx.queryText<EventKey>(allNew ? WRITE_FRESH : WRITE_NEW, parameters);
  const keptKeys = new Set(kept.map(eventKey));
  const fresh = kept.length === 0 ? events : events.filter((e) => !keptKeys.has(eventKey(e)));
  const stored = kept.length === 0 ? [] : events.filter((e) => keptKeys.has(eventKey(e)));
  const replaced: Array<{ old: Existing; event: BatchRow }> = [];
  let unchanged = 0;
  if (stored.length > 0) {
    const keys = [
      stored.map((e) => e.workspace),
      stored.map((e) => e.type),
      stored.map((e) => e.id),
    ];
    const existing = new Map<string, Existing>();
    for (const row of await tx.query<Existing>(FIND_EXISTING, keys))
      existing.set(eventKey(row), row);
    for (const event of stored) {
      const old = existing.get(eventKey(event));
      // The insert met this id, so it is stored; only another process replacing it at the same
      // moment could hide it, and then this ingest stops (nothing of the batch is kept).
      if (old === undefined)
        throw new LookupCoreError(
          'ingest_conflict',
          `event ${JSON.stringify([event.workspace, event.type, event.id])} changed during ingest`,
        );
      if (old.hash === event.hash) unchanged++;
      else replaced.push({ old, event });
    }
  }
  if (replaced.length > 0) {
    const keyOf = ({ event: e }: { event: BatchRow }) => ({
      workspace: e.workspace,
      type: e.type,
      id: e.id,
    });
    await tx.query(DELETE_EVENTS, [JSON.stringify(replaced.map(keyOf))]);
    await tx.queryText(WRITE_REPLACEMENTS, batchParameters(replaced.map((r) => r.event)));
    await recompute(tx, replaced);
  }
  const notices = changesOf([...fresh, ...replaced.flatMap((r) => [r.old, r.event])]);
  if (notices.length > 0)
    await tx.query(NOTIFY, [CHANGES_CHANNEL, notices.map((notice) => encodeChange(notice))]);
  return { ingested: fresh.length, unchanged, replaced: replaced.length, notices };
}

/** The notices naming every company and contact the given event versions belong to. */
function changesOf(versions: Array<{ workspace: string; domain: string; email: string | null }>) {
  const byWorkspace = new Map<string, { domains: Set<string>; emails: Set<string> }>();
  for (const { workspace, domain, email } of versions) {
    const keys = byWorkspace.get(workspace) ?? { domains: new Set(), emails: new Set() };
    byWorkspace.set(workspace, keys);
    keys.domains.add(domain);
    if (email !== null) keys.emails.add(email);
  }
  return [...byWorkspace].flatMap(([workspace, keys]) =>
    splitChange({ workspace, domains: [...keys.domains], emails: [...keys.emails] }),
  );
}

/** Rebuilds every company and contact touched by either version of a replaced event. */
async function recompute(tx: Queryable, replaced: Array<{ old: Existing; event: BatchRow }>) {
  const companies = new Map<string, { workspace: string; domain: string }>();
  const contacts = new Map<string, { workspace: string; email: string }>();
  for (const version of replaced.flatMap((r) => [r.old, r.event])) {
    const { workspace, domain, email } = version;
    companies.set(JSON.stringify([workspace, domain]), { workspace, domain });
    if (email !== null) contacts.set(JSON.stringify([workspace, email]), { workspace, email });
  }
  const companyKeys = JSON.stringify([...companies.values()]);
  for (const sql of DELETE_COMPANIES) await tx.query(sql, [companyKeys]);
  await tx.query(RECOMPUTE_COMPANIES, [companyKeys]);
  if (contacts.size === 0) return;
  const contactKeys = JSON.stringify([...contacts.values()]);
  for (const sql of DELETE_CONTACTS) await tx.query(sql, [contactKeys]);
  await tx.query(RECOMPUTE_CONTACTS, [contactKeys]);
}

/** SQLSTATE classes of a statement refused for its data: 22 data exception, 23 integrity, 54 limits. */
const REFUSED_DATA = /^(22|23|54)/;

/** The constraints that keep every sum within the exact integers of a JSON number (migration 2). */
const EXACT_SUMS: Record<string, string> = {
  companies_sums_exact: "a company's sums",
  contacts_sums_exact: "a contact's sums",
};

function refusedData(error: unknown): error is Error & { code: string; constraint?: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && REFUSED_DATA.test(code);
}

function refusalReason(error: Error & { constraint?: string }): string {
  const sums = EXACT_SUMS[error.constraint ?? ''];
  if (sums) return `adding it would take ${sums} past 2^53-1 (9007199254740991)`;
  return `the database refused it: ${error.message}`;
}

/** Events of a batch with where they came from, so a line the database refuses can be named. */
interface Pending {
  line: number;
  raw: unknown;
  event: BatchRow;
  /** Later lines of the batch with the same id and content: unchanged once this one is stored. */
  repeats: Array<{ line: number; raw: unknown }>;
}

/**
 * Events per transaction unless told otherwise. Large: each batch visits nearly every leaf page of
 * the per-company and per-contact indexes (their keys arrive in no order) and updates each
 * company and contact it names once, so fewer, larger batches cost the database less per event;
 * larger ones than this gained nothing more and held twice the memory (figures: docs/design/2026-11-27-measured-choices.md).
 */
export const DEFAULT_BATCH_SIZE = 100_000;
/**
 * The first batch holds at most this many events, and each next one four times as many as the
 * one before, up to the batch size: the database starts writing while the rest is still read,
 * rather than after a whole batch has been (figures: docs/design/2026-11-27-measured-choices.md).
 */
const FIRST_BATCH_SIZE = 10_000;
/** Raw input held per batch at most, so long lines cannot make a batch huge. */
const MAX_BATCH_INPUT_CHARS = 64 * 1024 * 1024;

const TABLES = 'events, companies, contacts, company_visitors, company_signals, contact_signals';
/** Rows written since the last ANALYZE per database, and how many call for the next one. */
const statistics = new WeakMap<Database, { written: number; threshold: number }>();

/**
 * Refreshes planner statistics once enough was written: PGlite runs no autovacuum, and
 * PostgreSQL's lags a bulk load, and without statistics per-company reads pick the primary key
 * with a filter over every event of the workspace instead of `events_by_company`. The first ingest
 * into a database (in this process) analyses; later ones once 10% more rows (at least 1,000) came.
 */
async function refreshStatistics(db: Database, written: number): Promise<void> {
  const state = statistics.get(db) ?? { written: 0, threshold: 0 };
  statistics.set(db, state);
  state.written += written;
  if (state.written === 0 || state.written < state.threshold) return;
  await db.exec(`ANALYZE ${TABLES}`);
  const [row] = await db.query<{ rows: number }>(
    "SELECT reltuples::float8 AS rows FROM pg_class WHERE oid = 'events'::regclass",
  );
  state.written = 0;
  state.threshold = Math.max(1000, 0.1 * Number(row?.rows ?? 0));
}

/**
 * One call of `ingestEvents`: the batch being gathered, the batch being written, and the running
 * counts. Each step is a method: read the source, take a line into the batch, hold it, flush the
 * batch, store it (halving a refused one), reject a line, and report the result.
 */
class IngestRun {
  private readonly batchSize: number;
  /** Events the batch being gathered may hold: from `FIRST_BATCH_SIZE`, growing to `batchSize`. */
  private batchLimit: number;
  private readonly parseOptions: ParseOptions;
  private readonly rejected: IngestRejection[] = [];
  /** Whether the next batch is written as all new (`WRITE_FRESH`). */
  private expectFresh = true;
  private readonly progress: IngestProgress = {
    read: 0,
    ingested: 0,
    unchanged: 0,
    replaced: 0,
    rejected: 0,
  };
  private batch = new Map<string, Pending>();
  /** Lines held by the batch (repeats included) and their characters. */
  private batchLines = 0;
  private batchChars = 0;
  /**
   * The batch being written. The next batch is read, validated and encoded meanwhile (with
   * PostgreSQL the database works in another process), and starts writing only once this one has
   * committed.
   */
  private writing: Promise<void> = Promise.resolve();
  /** Encodes the events validated on this thread (those not from `validatedOffThread`). */
  private encoder = new RowEncoder();

  private readonly db: Database;
  private readonly options: IngestOptions;

  constructor(db: Database, options: IngestOptions) {
    this.db = db;
    this.options = options;
    this.batchSize = Math.max(1, options.batchSize ?? DEFAULT_BATCH_SIZE);
    this.batchLimit = Math.min(this.batchSize, FIRST_BATCH_SIZE);
    this.parseOptions = {
      now: Date.now(),
      ...(options.maxFutureSkewSeconds === undefined
        ? {}
        : { maxFutureSkewSeconds: options.maxFutureSkewSeconds }),
    };
  }

  /** Reads the whole source into batches; what was handed to the database settles first on error. */
  async readAll(source: Iterable<unknown> | AsyncIterable<unknown>): Promise<void> {
    try {
      await this.readItems(source);
    } catch (error) {
      // What was handed to the database still commits (or fails) before the error is reported.
      await this.writing.catch(() => {});
      throw error;
    }
    await this.writing;
  }

  /** The result, once every batch is written; statistics refreshed when enough was written. */
  async result(): Promise<IngestResult> {
    const { progress, rejected } = this;
    if (rejected.length > 0) this.options.onProgress?.({ ...progress });
    await refreshStatistics(this.db, progress.ingested + progress.replaced);
    // The database's refusals arrive while later lines are read: report them in line order.
    rejected.sort((a, b) => a.line - b.line);
    return {
      ingested: progress.ingested,
      unchanged: progress.unchanged,
      replaced: progress.replaced,
      rejected,
    };
  }

  private async readItems(source: Iterable<unknown> | AsyncIterable<unknown>): Promise<void> {
    for await (const item of source) {
      if (item instanceof ValidatedLines) {
        const { lines, results } = item;
        for (let i = 0; i < lines.length; i++) {
          // Awaited only when the line is rejected or ends a batch: an await per line cost the
          // ingesting thread a turn of the event loop's microtasks per line.
          const waited = this.take(lines[i], results[i] as ParsedRow | null);
          if (waited) await waited;
        }
        continue;
      }
      if (item instanceof UnreadableLine) {
        await this.reject(++this.progress.read, item.reason, item);
        continue;
      }
      const blank = typeof item === 'string' && item.trim() === '';
      const waited = this.take(item, blank ? null : this.parsedHere(item));
      if (waited) await waited;
    }
    await this.flush();
  }

  private parsedHere(item: unknown): ParsedRow {
    const parsed = parseEvent(item, this.parseOptions);
    return parsed.ok ? { ok: true, row: this.encoder.row(parsed.event) } : parsed;
  }

  /**
   * Takes the next line (`parsed` is null for a blank one) into the batch; answers a promise when
   * the line is rejected or a batch is flushed.
   */
  private take(raw: unknown, parsed: ParsedRow | null): Promise<void> | undefined {
    const line = ++this.progress.read;
    if (parsed === null) return undefined;
    if (!parsed.ok) return this.reject(line, parsed.reason, raw);
    const key = eventKey(parsed.row);
    const first = this.batch.get(key);
    // A second version of an id within one batch is applied after the first, as a replacement.
    if (first !== undefined && first.event.hash !== parsed.row.hash)
      return this.flush().then(() => this.hold(line, raw, key, parsed.row));
    return this.hold(line, raw, key, parsed.row, first);
  }

  /** Holds an event in the batch (`first`: the same id and content already held); may flush. */
  private hold(line: number, raw: unknown, key: string, event: BatchRow, first?: Pending) {
    // An exact repeat changes nothing, and need not end the batch.
    if (first !== undefined) first.repeats.push({ line, raw });
    else this.batch.set(key, { line, raw, event, repeats: [] });
    this.batchLines++;
    this.batchChars += typeof raw === 'string' ? raw.length : 0;
    return this.batchLines >= this.batchLimit || this.batchChars >= MAX_BATCH_INPUT_CHARS
      ? this.flush()
      : undefined;
  }

  /** Hands the gathered batch to the database once the one before it has committed. */
  private async flush(): Promise<void> {
    if (this.batch.size === 0) return this.writing;
    const items = [...this.batch.values()];
    this.batch = new Map();
    this.batchLines = 0;
    this.batchChars = 0;
    this.batchLimit = Math.min(this.batchSize, 4 * this.batchLimit);
    // Rows encoded on this thread are read from here on.
    this.encoder.finish();
    this.encoder = new RowEncoder();
    const parameters = batchParameters(items.map((i) => i.event));
    await this.writing;
    this.writing = this.store(items, parameters);
    // Awaited by the next flush; until then a failure must not count as unhandled.
    this.writing.catch(() => {});
  }

  /**
   * Stores the items in one transaction; when the database refuses one of them for its data, the
   * halves are stored separately until that item stands alone and is rejected, so one line never
   * costs the others. A batch is first written as all new (`WRITE_FRESH`) unless the last one
   * held stored ids (`expectFresh`).
   */
  private async store(items: Pending[], parameters?: string[]): Promise<void> {
    let counts: Awaited<ReturnType<typeof writeBatch>>;
    const events = items.map((i) => i.event);
    // `flush` encodes a whole batch ahead; the halves of a refused one are encoded here.
    const encoded = parameters ?? batchParameters(events);
    try {
      counts = await this.db.transaction((tx) => writeBatch(tx, events, encoded, this.expectFresh));
    } catch (error) {
      return this.storeRefused(items, encoded, error);
    }
    this.counted(items, counts);
  }

  /** After a refused write: again as checked, or halved until the refused item stands alone. */
  private async storeRefused(items: Pending[], encoded: string[], error: unknown): Promise<void> {
    if (this.expectFresh && isFreshConflict(error)) {
      this.expectFresh = false;
      return this.store(items, encoded);
    }
    if (!refusedData(error)) throw error;
    const [only] = items;
    if (items.length === 1 && only) {
      // A repeat has the same content, so the database refuses it for the same reason.
      for (const { line, raw } of [only, ...only.repeats])
        await this.reject(line, refusalReason(error), raw);
      return;
    }
    const half = Math.ceil(items.length / 2);
    await this.store(items.slice(0, half));
    return this.store(items.slice(half));
  }

  /** Counts a committed batch and reports it. */
  private counted(items: Pending[], counts: Awaited<ReturnType<typeof writeBatch>>): void {
    const { progress, options } = this;
    // Checked writes go on until a batch turns out to be all new (a file ingested again, say).
    this.expectFresh = counts.ingested === items.length;
    progress.ingested += counts.ingested;
    progress.unchanged += counts.unchanged + items.reduce((n, i) => n + i.repeats.length, 0);
    progress.replaced += counts.replaced;
    if (counts.notices.length > 0) options.onCommitted?.(counts.notices);
    options.onProgress?.({ ...progress });
  }

  private async reject(line: number, reason: string, raw: unknown): Promise<void> {
    const rejection = { line, reason };
    this.rejected.push(rejection);
    this.progress.rejected = this.rejected.length;
    await this.options.onRejected?.(rejection, raw);
  }
}

/** Validates and stores events, one transaction per batch; see `LookupStore.ingest`. */
export async function ingestEvents(
  db: Database,
  source: Iterable<unknown> | AsyncIterable<unknown>,
  options: IngestOptions = {},
): Promise<IngestResult> {
  const run = new IngestRun(db, options);
  await run.readAll(source);
  return run.result();
}
