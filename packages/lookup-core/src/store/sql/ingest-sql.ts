/**
 * The SQL text of ingest: the statements one batch's transaction runs (`ingest.ts` runs them).
 * Each writes the raw events and keeps the company and contact aggregates current from the same
 * rows, so a batch reads its input once.
 */
import { BATCH, EVENT_COLUMNS } from './batch-rows.js';

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
export const WRITE_NEW = apply(
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
export const WRITE_FRESH = apply(
  `INSERT INTO events (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM (${BATCH}) AS b ${IN_COMPANY_ORDER} RETURNING ${AGGREGATED}`,
  ['companies', 'contacts'],
  // Answers, as `WRITE_NEW` does, the keys not stored: none.
  'SELECT workspace, type, id FROM batch WHERE false',
);
/** Stores new versions of stored ids; the recomputation counts them. */
export const WRITE_REPLACEMENTS = `INSERT INTO events (${EVENT_COLUMNS}) SELECT ${EVENT_COLUMNS} FROM (${BATCH}) AS b ${IN_COMPANY_ORDER}`;
export const RECOMPUTE_COMPANIES = apply(STORED_OF_COMPANIES, ['companies']);
export const RECOMPUTE_CONTACTS = apply(STORED_OF_CONTACTS, ['contacts']);

/** `$1`, `$2`, `$3`: the workspaces, types and ids of the batch, as arrays. */
export const FIND_EXISTING = `SELECT e.workspace, e.type, e.id, e.hash, e.domain, e.email
  FROM events e JOIN unnest($1::text[], $2::text[], $3::text[]) AS k(workspace, type, id)
  ON e.workspace = k.workspace AND e.type = k.type AND e.id = k.id`;
export const DELETE_EVENTS = `DELETE FROM events e USING jsonb_to_recordset($1::jsonb) AS k(workspace text, type text, id text)
  WHERE e.workspace = k.workspace AND e.type = k.type AND e.id = k.id`;
export const DELETE_COMPANIES = ['companies', 'company_visitors', 'company_signals'].map(
  (
    table,
  ) => `DELETE FROM ${table} x USING jsonb_to_recordset($1::jsonb) AS k(workspace text, domain text)
  WHERE x.workspace = k.workspace AND x.domain = k.domain`,
);
export const DELETE_CONTACTS = ['contacts', 'contact_signals'].map(
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
export const BATCH_SETTINGS = `SELECT set_config('work_mem', '64MB', true), set_config('jit', 'off', true),
  set_config('plan_cache_mode', 'force_generic_plan', true)`;
/**
 * Records every notice of `$2` in the change log, in the batch's transaction, and sends each on
 * channel `$1` (a wake-up for servers that listen), in one round trip. The log row's `xid` is the
 * writing transaction's, which is how readers know when every row below a point has committed
 * (`store/change-log.ts`).
 */
export const LOG_CHANGES = `WITH logged AS (
  INSERT INTO service_lookup_changes (notice) SELECT unnest($2::text[]) RETURNING notice
) SELECT pg_notify($1, notice) FROM logged`;

/**
 * Drops change log rows older than `$1` seconds: every reader has read them by then, or starts
 * afresh after so long a pause (`store/change-log.ts`).
 */
export const PRUNE_CHANGES = `DELETE FROM service_lookup_changes
  WHERE logged_at < now() - make_interval(secs => $1::float8)`;
