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
import { CHANGE_LOG_RETENTION_MS } from '../change-log.js';
import {
  type BatchRow,
  batchParameters,
  type EventVersion,
  type ParsedRow,
  RowEncoder,
  ValidatedLines,
} from './batch-rows.js';
import type { Database, Queryable, Transaction } from './db.js';
import {
  BATCH_SETTINGS,
  DELETE_COMPANIES,
  DELETE_CONTACTS,
  DELETE_EVENTS,
  FIND_EXISTING,
  LOG_CHANGES,
  PRUNE_CHANGES,
  RECOMPUTE_COMPANIES,
  RECOMPUTE_CONTACTS,
  WRITE_FRESH,
  WRITE_NEW,
  WRITE_REPLACEMENTS,
} from './ingest-sql.js';

/** A unique violation of the events' primary key: the batch held an id already stored. */
const isFreshConflict = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === '23505' &&
  (error as { constraint?: unknown }).constraint === 'events_pkey';

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
    await tx.query(LOG_CHANGES, [CHANGES_CHANNEL, notices.map((notice) => encodeChange(notice))]);
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
  repeats?: Array<{ line: number; raw: unknown }>;
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
    if (progress.ingested + progress.replaced > 0)
      await this.db.query(PRUNE_CHANGES, [CHANGE_LOG_RETENTION_MS / 1000]);
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
    // `repeats` is made only for the rare event that has some: one array less per event.
    if (first === undefined) this.batch.set(key, { line, raw, event });
    else if (first.repeats === undefined) first.repeats = [{ line, raw }];
    else first.repeats.push({ line, raw });
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
      for (const { line, raw } of [only, ...(only.repeats ?? [])])
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
    progress.unchanged +=
      counts.unchanged + items.reduce((n, i) => n + (i.repeats?.length ?? 0), 0);
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
