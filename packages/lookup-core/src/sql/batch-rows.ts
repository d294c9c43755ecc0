/**
 * An event as a batch writes it: its columns already written as elements of PostgreSQL array
 * literals, plus the few fields ingest compares and groups by. Encoding is done once per event,
 * where it was validated (the validation thread of `service-lookup ingest`), so the thread that
 * writes batches only joins the elements.
 */
import { type ParseOptions, parseEvent, type StoredEvent } from '../events.js';

/** An element of a PostgreSQL array literal: `NULL`, or a quoted string. */
const text = (value: string | null): string => {
  if (value === null) return 'NULL';
  return /["\\]/.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : `"${value}"`;
};
const number = (value: number): string => String(value);
const json = (value: unknown): string => text(JSON.stringify(value));

/**
 * A batch's columns, each sent as one array parameter and turned back into rows by `unnest`, with
 * how a value is written in the array literal. One reader per column keeps every property read
 * monomorphic: reading `row[column]` by name was a sixth of the writing thread's time at 1,000,000.
 */
const BATCH_COLUMNS: ReadonlyArray<readonly [string, string, (e: StoredEvent) => string]> = [
  ['workspace', 'text', (e) => text(e.workspace)],
  ['type', 'text', (e) => text(e.type)],
  ['id', 'text', (e) => text(e.id)],
  ['hash', 'text', (e) => text(e.hash)],
  ['domain', 'text', (e) => text(e.domain)],
  ['company_name', 'text', (e) => text(e.company_name)],
  ['industry', 'text', (e) => text(e.industry)],
  ['email', 'text', (e) => text(e.email)],
  ['contact_name', 'text', (e) => text(e.contact_name)],
  ['title', 'text', (e) => text(e.title)],
  ['visitor_id', 'text', (e) => text(e.visitor_id)],
  ['seen_from', 'timestamptz', (e) => text(e.seen_from)],
  ['seen_to', 'timestamptz', (e) => text(e.seen_to)],
  ['active_time', 'bigint', (e) => number(e.active_time)],
  ['pages', 'json', (e) => json(e.pages)],
  // Counted here rather than by `json_array_length` on every row of the batch.
  ['page_count', 'integer', (e) => number(e.pages.length)],
  ['signals', 'json', (e) => json(e.signals)],
  ['referrer', 'text', (e) => text(e.referrer)],
  ['utm', 'json', (e) => json(e.utm)],
  ['intent', 'smallint', (e) => number(e.intent)],
  ['city', 'text', (e) => text(e.city)],
  ['state', 'text', (e) => text(e.state)],
  ['country', 'text', (e) => text(e.country)],
  ['impressions', 'bigint', (e) => number(e.impressions)],
  ['clicks', 'bigint', (e) => number(e.clicks)],
  ['likes', 'bigint', (e) => number(e.likes)],
  ['shares', 'bigint', (e) => number(e.shares)],
  ['comments', 'bigint', (e) => number(e.comments)],
];

/** Every stored column of an event, in the order of `BATCH`. */
export const EVENT_COLUMNS = BATCH_COLUMNS.map(([column]) => column).join(', ');

/** Events sent as one array per column (`$1`...), turned back into rows. */
export const BATCH = `SELECT * FROM unnest(${BATCH_COLUMNS.map(
  ([, type], i) => `$${i + 1}::${type}[]`,
).join(', ')}) AS r(${EVENT_COLUMNS})`;

/** What ingest compares and groups a version of an event by (also as read back from the store). */
export interface EventVersion {
  workspace: string;
  type: string;
  id: string;
  hash: string;
  domain: string;
  email: string | null;
}

/** Columns in a batch: the width of a row in `EncodedRows.ends`. */
const WIDTH = BATCH_COLUMNS.length;

/**
 * Consecutive rows, encoded: per column, the rows' elements joined by commas (as they stand in an
 * array literal), and where each row's element ends. A batch made of whole runs of them takes
 * each column as a few slices, not as one string per event: joining 27 strings per event was the
 * largest part of the writing thread's own work.
 */
export interface EncodedRows {
  columns: string[];
  /** The end of row r's element of column c, at `r * WIDTH + c`. */
  ends: Int32Array<ArrayBuffer>;
}

/** An event of a batch: what ingest compares it by, and where its encoded columns are. */
export interface BatchRow extends EventVersion {
  rows: EncodedRows;
  index: number;
}

/** Validation's answer for one event: its version and index in the encoded rows, or a reason. */
export type ParsedVersion =
  | { ok: true; version: EventVersion & { index: number } }
  | { ok: false; reason: string };

/** Encodes events one after another into `EncodedRows`. */
export class RowEncoder {
  /** The rows encoded: filled in by `finish`, and only then read. */
  readonly rows: EncodedRows = { columns: [], ends: new Int32Array(0) };
  readonly #elements: string[][] = BATCH_COLUMNS.map(() => []);
  readonly #lengths = new Array<number>(WIDTH).fill(0);
  readonly #ends: number[] = [];
  #count = 0;

  /** Adds an event; answers its index. */
  add(event: StoredEvent): number {
    const comma = this.#count === 0 ? 0 : 1;
    for (let c = 0; c < WIDTH; c++) {
      const element = (BATCH_COLUMNS[c] as (typeof BATCH_COLUMNS)[number])[2](event);
      (this.#elements[c] as string[]).push(element);
      this.#lengths[c] = (this.#lengths[c] as number) + comma + element.length;
      this.#ends.push(this.#lengths[c] as number);
    }
    return this.#count++;
  }

  /** Adds an event; answers it as a row of this encoder's rows. */
  row(event: StoredEvent): BatchRow {
    return { ...versionOf(event), rows: this.rows, index: this.add(event) };
  }

  finish(): EncodedRows {
    this.rows.columns = this.#elements.map((e) => e.join(','));
    this.rows.ends = Int32Array.from(this.#ends);
    return this.rows;
  }
}

const versionOf = ({ workspace, type, id, hash, domain, email }: StoredEvent): EventVersion => ({
  workspace,
  type,
  id,
  hash,
  domain,
  email,
});

/**
 * Validates events (`parseEvent`) and encodes those that are valid; `parsed[i]` answers `inputs[i]`.
 */
export function parseVersions(
  inputs: unknown[],
  options: ParseOptions,
): { parsed: ParsedVersion[]; rows: EncodedRows } {
  const encoder = new RowEncoder();
  const parsed = inputs.map((input): ParsedVersion => {
    const result = parseEvent(input, options);
    if (!result.ok) return result;
    return { ok: true, version: { ...versionOf(result.event), index: encoder.add(result.event) } };
  });
  return { parsed, rows: encoder.finish() };
}

export type ParsedRow = { ok: true; row: BatchRow } | { ok: false; reason: string };

/**
 * A line and what validating and encoding it gave (`validatedOffThread`); `ingest` takes it as it
 * is. Kept here, with the rows it carries, so ingest does not depend on the thread that made it.
 */
export class ValidatedLine {
  readonly line: string;
  readonly result: ParsedRow;
  constructor(line: string, result: ParsedRow) {
    this.line = line;
    this.result = result;
  }
}

/** Gives parsed versions their encoded rows, making them batch rows (in place). */
export function withRows(parsed: ParsedVersion[], rows: EncodedRows): ParsedRow[] {
  for (const p of parsed) if (p.ok) (p.version as BatchRow).rows = rows;
  return parsed.map((p) => (p.ok ? { ok: true, row: p.version as BatchRow } : p));
}

/** The slice of column `c` holding rows `first` to `last` of `rows`. */
function columnSlice({ columns, ends }: EncodedRows, c: number, first: number, last: number) {
  const start = first === 0 ? 0 : (ends[(first - 1) * WIDTH + c] as number) + 1;
  return (columns[c] as string).slice(start, ends[last * WIDTH + c]);
}

/**
 * The batch's parameters: one array literal per column, made of a slice per run of consecutive
 * encoded rows (usually one per chunk validated).
 */
export function batchParameters(batch: BatchRow[]): string[] {
  const runs: Array<{ rows: EncodedRows; first: number; last: number }> = [];
  let run: (typeof runs)[number] | undefined;
  for (const row of batch) {
    if (run?.rows === row.rows && run.last === row.index - 1) {
      run.last = row.index;
    } else {
      run = { rows: row.rows, first: row.index, last: row.index };
      runs.push(run);
    }
  }
  return BATCH_COLUMNS.map((_, c) => {
    const slices = runs.map((r) => columnSlice(r.rows, c, r.first, r.last));
    return `{${slices.join(',')}}`;
  });
}
