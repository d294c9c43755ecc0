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

export interface BatchRow extends EventVersion {
  /** One array-literal element per column of `BATCH`. */
  cells: string[];
}

export type ParsedRow = { ok: true; row: BatchRow } | { ok: false; reason: string };

export function toBatchRow(event: StoredEvent): BatchRow {
  const cells = new Array<string>(BATCH_COLUMNS.length);
  for (let c = 0; c < BATCH_COLUMNS.length; c++)
    cells[c] = (BATCH_COLUMNS[c] as (typeof BATCH_COLUMNS)[number])[2](event);
  const { workspace, type, id, hash, domain, email } = event;
  return { workspace, type, id, hash, domain, email, cells };
}

/** Validates one event (`parseEvent`) and encodes it for a batch. */
export function parseBatchRow(input: unknown, options: ParseOptions): ParsedRow {
  const parsed = parseEvent(input, options);
  return parsed.ok ? { ok: true, row: toBatchRow(parsed.event) } : parsed;
}

/** The batch's parameters: one array literal per column, joined from the rows' elements. */
export function batchParameters(rows: BatchRow[]): string[] {
  return BATCH_COLUMNS.map((_, c) => {
    const elements = new Array<string>(rows.length);
    for (let i = 0; i < rows.length; i++) elements[i] = (rows[i] as BatchRow).cells[c] as string;
    return `{${elements.join(',')}}`;
  });
}
