/**
 * An event as a batch writes it: its columns already written as elements of PostgreSQL array
 * literals, plus the few fields ingest compares and groups by. Encoding is done once per event,
 * where it was validated (the validation thread of `service-lookup ingest`), so the thread that
 * writes batches only joins the elements.
 */
import { type ParseOptions, parseEvent, type StoredEvent } from '../../model/events.js';

/** An element of a PostgreSQL array literal: `NULL`, or a quoted string. */
const text = (value: string | null): string => {
  if (value === null) return 'NULL';
  return /["\\]/.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : `"${value}"`;
};
const number = (value: number): string => String(value);
const json = (value: unknown): string => text(JSON.stringify(value));

/**
 * A batch's columns, each sent as one array parameter and turned back into rows by `unnest`, with
 * their types. `RowEncoder.add` writes an event's elements in this order.
 */
const BATCH_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ['workspace', 'text'],
  ['type', 'text'],
  ['id', 'text'],
  ['hash', 'text'],
  ['domain', 'text'],
  ['company_name', 'text'],
  ['industry', 'text'],
  ['email', 'text'],
  ['contact_name', 'text'],
  ['title', 'text'],
  ['visitor_id', 'text'],
  ['seen_from', 'timestamptz'],
  ['seen_to', 'timestamptz'],
  ['active_time', 'bigint'],
  ['pages', 'json'],
  // Counted when encoded rather than by `json_array_length` on every row of the batch.
  ['page_count', 'integer'],
  ['signals', 'json'],
  ['referrer', 'text'],
  ['utm', 'json'],
  ['intent', 'smallint'],
  ['city', 'text'],
  ['state', 'text'],
  ['country', 'text'],
  ['impressions', 'bigint'],
  ['clicks', 'bigint'],
  ['likes', 'bigint'],
  ['shares', 'bigint'],
  ['comments', 'bigint'],
];

/** Every stored column of an event, in the order of `BATCH`. */
export const EVENT_COLUMNS = BATCH_COLUMNS.map(([column]) => column).join(', ');

/**
 * Events sent as one array per column (`$1`...), turned back into rows: one `unnest` per column in
 * the select list, which PostgreSQL steps through together, row by row. The multi-argument
 * `unnest(...)` in FROM first copied every column into a tuple store of its own: 0.44 s against
 * 0.25 s for 100,000 events, arrays parsed included (docs/design/2026-11-29-lookup-at-the-limit.md).
 */
export const BATCH = `SELECT ${BATCH_COLUMNS.map(
  ([column, type], i) => `unnest($${i + 1}::${type}[]) AS ${column}`,
).join(', ')}`;

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
  | { ok: true; row: EventVersion & { index: number } }
  | { ok: false; reason: string };

/** Encodes events one after another into `EncodedRows`. */
export class RowEncoder {
  /** The rows encoded: filled in by `finish`, and only then read. */
  readonly rows: EncodedRows = { columns: [], ends: new Int32Array(0) };
  readonly #elements: string[][] = BATCH_COLUMNS.map(() => []);
  readonly #lengths = new Array<number>(WIDTH).fill(0);
  #ends: Int32Array<ArrayBuffer>;
  #count = 0;

  /** `rows`: how many events are expected (the offsets grow past it when more come). */
  constructor(rows = 64) {
    this.#ends = new Int32Array(Math.max(1, rows) * WIDTH);
  }

  /**
   * Adds an event; answers its index. The columns are written out one by one, in the order of
   * `BATCH_COLUMNS`: one call site per column lets V8 specialise each (a loop over per-column
   * writers cost the validation thread a third more CPU).
   */
  add(e: StoredEvent): number {
    if ((this.#count + 1) * WIDTH > this.#ends.length) {
      const grown = new Int32Array(this.#ends.length * 2);
      grown.set(this.#ends);
      this.#ends = grown;
    }
    this.#put(0, text(e.workspace));
    this.#put(1, text(e.type));
    this.#put(2, text(e.id));
    this.#put(3, text(e.hash));
    this.#put(4, text(e.domain));
    this.#put(5, text(e.company_name));
    this.#put(6, text(e.industry));
    this.#put(7, text(e.email));
    this.#put(8, text(e.contact_name));
    this.#put(9, text(e.title));
    this.#put(10, text(e.visitor_id));
    this.#put(11, text(e.seen_from));
    this.#put(12, text(e.seen_to));
    this.#put(13, number(e.active_time));
    this.#put(14, json(e.pages));
    this.#put(15, number(e.pages.length));
    this.#put(16, json(e.signals));
    this.#put(17, text(e.referrer));
    this.#put(18, json(e.utm));
    this.#put(19, number(e.intent));
    this.#put(20, text(e.city));
    this.#put(21, text(e.state));
    this.#put(22, text(e.country));
    this.#put(23, number(e.impressions));
    this.#put(24, number(e.clicks));
    this.#put(25, number(e.likes));
    this.#put(26, number(e.shares));
    this.#put(27, number(e.comments));
    return this.#count++;
  }

  /** Writes column `c`'s element of the event being added. */
  #put(c: number, element: string): void {
    (this.#elements[c] as string[]).push(element);
    // Elements after a row's first are preceded by a comma in the joined column.
    const end = (this.#lengths[c] as number) + (this.#count === 0 ? 0 : 1) + element.length;
    this.#lengths[c] = end;
    this.#ends[this.#count * WIDTH + c] = end;
  }

  /** Adds an event; answers it as a row of this encoder's rows. */
  row(event: StoredEvent): BatchRow {
    return { ...versionOf(event), rows: this.rows, index: this.add(event) };
  }

  finish(): EncodedRows {
    this.rows.columns = this.#elements.map((e) => e.join(','));
    this.rows.ends = this.#ends.slice(0, this.#count * WIDTH);
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
 * Validates NDJSON lines (`parseEvent`) and encodes the valid events; `parsed[i]` answers
 * `lines[i]`, null for a blank line (ingest skips it, still counting it).
 */
export function parseLines(
  lines: string[],
  options: ParseOptions,
): { parsed: Array<ParsedVersion | null>; rows: EncodedRows } {
  const encoder = new RowEncoder(lines.length);
  const parsed = lines.map((line): ParsedVersion | null => {
    if (line.trim() === '') return null;
    const result = parseEvent(line, options);
    if (!result.ok) return result;
    const e = result.event;
    const { workspace, type, id, hash, domain, email } = e;
    // One object per event, sent to the ingesting thread and made a batch row there in place.
    return { ok: true, row: { workspace, type, id, hash, domain, email, index: encoder.add(e) } };
  });
  return { parsed, rows: encoder.finish() };
}

export type ParsedRow = { ok: true; row: BatchRow } | { ok: false; reason: string };

/**
 * Consecutive lines and what validating and encoding each gave (`validatedOffThread`):
 * `results[i]` answers `lines[i]`, null for a blank line. `ingest` takes them as they are, a chunk
 * at a time: handing them over one line at a time cost the ingesting thread an await per line.
 * Kept here, with the rows it carries, so ingest does not depend on the thread that made it.
 */
export class ValidatedLines {
  readonly lines: string[];
  readonly results: Array<ParsedRow | null>;
  constructor(lines: string[], results: Array<ParsedRow | null>) {
    this.lines = lines;
    this.results = results;
  }
}

/** Gives parsed versions their encoded rows, making them batch rows (in place, no copies). */
export function withRows(
  parsed: Array<ParsedVersion | null>,
  rows: EncodedRows,
): Array<ParsedRow | null> {
  return parsed.map((p) => {
    if (p === null || !p.ok) return p;
    (p.row as BatchRow).rows = rows;
    return p as ParsedRow;
  });
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
