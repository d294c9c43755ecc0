/**
 * Ingest: raw events are kept, and the company and contact aggregates are kept current in the same
 * transaction, one transaction per batch.
 *
 * New events are added to the aggregates (sums add, first/last seen widen, distinct sets grow).
 * An id re-sent with different content replaces the old version: the old row is deleted, the new
 * one inserted, and every company and contact either version touched is recomputed from its raw
 * events, so the aggregates reflect the new version exactly once. Same content changes nothing.
 */
import { parseEvent, type StoredEvent } from '../events.js';
import type { IngestOptions, IngestProgress, IngestRejection, IngestResult } from '../types.js';
import type { Database, Queryable } from './db.js';

/** A set of raw events to add to the aggregates, as a join on a JSON list of keys in `$1`. */
type Source = string;
const BY_EVENT_ID: Source = `JOIN jsonb_to_recordset($1::jsonb) AS k(workspace text, type text, id text)
  ON e.workspace = k.workspace AND e.type = k.type AND e.id = k.id`;
const BY_COMPANY: Source = `JOIN jsonb_to_recordset($1::jsonb) AS k(workspace text, domain text)
  ON e.workspace = k.workspace AND e.domain = k.domain`;
const BY_CONTACT: Source = `JOIN jsonb_to_recordset($1::jsonb) AS k(workspace text, email text)
  ON e.workspace = k.workspace AND e.email = k.email`;

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

const addToCompanies = (source: Source) => `
INSERT INTO companies AS t (workspace, domain, name, industry, profile_at, ${ACTIVITY_COLUMNS})
SELECT e.workspace, e.domain, ${latest('company_name')}, ${latest('industry')},
  max(e.seen_from) FILTER (WHERE e.company_name IS NOT NULL OR e.industry IS NOT NULL), ${ACTIVITY_SELECT}
FROM events e ${source}
GROUP BY e.workspace, e.domain
ON CONFLICT (workspace, domain) DO UPDATE SET ${keepLatest('name')}, ${keepLatest('industry')},
  profile_at = greatest(t.profile_at, excluded.profile_at), ${ACTIVITY_ADD}`;

const addToVisitors = (source: Source) => `
WITH added AS (
  INSERT INTO company_visitors (workspace, domain, visitor_id)
  SELECT DISTINCT e.workspace, e.domain, e.visitor_id FROM events e ${source} WHERE e.visitor_id IS NOT NULL
  ON CONFLICT DO NOTHING
  RETURNING workspace, domain
), counted AS (SELECT workspace, domain, count(*) AS n FROM added GROUP BY workspace, domain)
UPDATE companies c SET visitors = c.visitors + counted.n
FROM counted WHERE c.workspace = counted.workspace AND c.domain = counted.domain`;

const addToCompanySignals = (source: Source) => `
INSERT INTO company_signals (workspace, domain, signal)
SELECT DISTINCT e.workspace, e.domain, s.signal FROM events e ${source}
CROSS JOIN LATERAL jsonb_array_elements_text(e.signals) AS s(signal)
ON CONFLICT DO NOTHING`;

const addToContacts = (source: Source) => `
INSERT INTO contacts AS t (workspace, email, company_domain, company_at, name, title, profile_at, ${ACTIVITY_COLUMNS})
SELECT e.workspace, e.email, (array_agg(e.domain ORDER BY e.seen_from DESC))[1], max(e.seen_from),
  ${latest('contact_name')}, ${latest('title')},
  max(e.seen_from) FILTER (WHERE e.contact_name IS NOT NULL OR e.title IS NOT NULL), ${ACTIVITY_SELECT}
FROM events e ${source}
WHERE e.email IS NOT NULL
GROUP BY e.workspace, e.email
ON CONFLICT (workspace, email) DO UPDATE SET
  company_domain = CASE WHEN excluded.company_at >= t.company_at THEN excluded.company_domain ELSE t.company_domain END,
  company_at = greatest(t.company_at, excluded.company_at),
  ${keepLatest('name')}, ${keepLatest('title')}, profile_at = greatest(t.profile_at, excluded.profile_at),
  ${ACTIVITY_ADD}`;

const addToContactSignals = (source: Source) => `
INSERT INTO contact_signals (workspace, email, signal)
SELECT DISTINCT e.workspace, e.email, s.signal FROM events e ${source}
CROSS JOIN LATERAL jsonb_array_elements_text(e.signals) AS s(signal)
WHERE e.email IS NOT NULL
ON CONFLICT DO NOTHING`;

const EVENT_RECORD = `workspace text, type text, id text, hash text, domain text, company_name text,
  industry text, email text, contact_name text, title text, visitor_id text, seen_from timestamptz,
  seen_to timestamptz, active_time bigint, pages jsonb, signals jsonb, referrer text, utm jsonb,
  intent smallint, city text, state text, country text, impressions bigint, clicks bigint,
  likes bigint, shares bigint, comments bigint`;

const INSERT_EVENTS = `
INSERT INTO events (workspace, type, id, hash, domain, company_name, industry, email, contact_name,
  title, visitor_id, seen_from, seen_to, active_time, pages, page_count, signals, referrer, utm, intent,
  city, state, country, impressions, clicks, likes, shares, comments)
SELECT workspace, type, id, hash, domain, company_name, industry, email, contact_name, title,
  visitor_id, seen_from, seen_to, active_time, pages, jsonb_array_length(pages), signals, referrer, utm,
  intent, city, state, country, impressions, clicks, likes, shares, comments
FROM jsonb_to_recordset($1::jsonb) AS r(${EVENT_RECORD})`;

const FIND_EXISTING = `SELECT e.workspace, e.type, e.id, e.hash, e.domain, e.email FROM events e ${BY_EVENT_ID}`;
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

interface Existing {
  workspace: string;
  type: string;
  id: string;
  hash: string;
  domain: string;
  email: string | null;
}

const eventKey = (e: { workspace: string; type: string; id: string }) =>
  JSON.stringify([e.workspace, e.type, e.id]);

async function addEvents(tx: Queryable, source: Source, keys: string, withContacts: boolean) {
  await tx.query(addToCompanies(source), [keys]);
  await tx.query(addToVisitors(source), [keys]);
  await tx.query(addToCompanySignals(source), [keys]);
  if (!withContacts) return;
  await tx.query(addToContacts(source), [keys]);
  await tx.query(addToContactSignals(source), [keys]);
}

/** Stores one batch (ids unique within it); returns how many were new, unchanged, replaced. */
async function writeBatch(tx: Queryable, events: StoredEvent[]) {
  const keyOf = (e: StoredEvent) => ({ workspace: e.workspace, type: e.type, id: e.id });
  const existing = new Map<string, Existing>();
  for (const row of await tx.query<Existing>(FIND_EXISTING, [JSON.stringify(events.map(keyOf))])) {
    existing.set(eventKey(row), row);
  }
  const fresh: StoredEvent[] = [];
  const replaced: Array<{ old: Existing; event: StoredEvent }> = [];
  let unchanged = 0;
  for (const event of events) {
    const old = existing.get(eventKey(event));
    if (!old) fresh.push(event);
    else if (old.hash === event.hash) unchanged++;
    else replaced.push({ old, event });
  }
  if (replaced.length > 0) {
    await tx.query(DELETE_EVENTS, [JSON.stringify(replaced.map((r) => keyOf(r.event)))]);
  }
  const written = [...fresh, ...replaced.map((r) => r.event)];
  if (written.length > 0) await tx.query(INSERT_EVENTS, [JSON.stringify(written)]);
  if (fresh.length > 0) {
    const withContacts = fresh.some((e) => e.email !== null);
    await addEvents(tx, BY_EVENT_ID, JSON.stringify(fresh.map(keyOf)), withContacts);
  }
  if (replaced.length > 0) await recompute(tx, replaced);
  return { ingested: fresh.length, unchanged, replaced: replaced.length };
}

/** Rebuilds every company and contact touched by either version of a replaced event. */
async function recompute(tx: Queryable, replaced: Array<{ old: Existing; event: StoredEvent }>) {
  const companies = new Map<string, { workspace: string; domain: string }>();
  const contacts = new Map<string, { workspace: string; email: string }>();
  for (const version of replaced.flatMap((r) => [r.old, r.event])) {
    const { workspace, domain, email } = version;
    companies.set(JSON.stringify([workspace, domain]), { workspace, domain });
    if (email !== null) contacts.set(JSON.stringify([workspace, email]), { workspace, email });
  }
  const companyKeys = JSON.stringify([...companies.values()]);
  for (const sql of DELETE_COMPANIES) await tx.query(sql, [companyKeys]);
  await addEvents(tx, BY_COMPANY, companyKeys, false);
  if (contacts.size === 0) return;
  const contactKeys = JSON.stringify([...contacts.values()]);
  for (const sql of DELETE_CONTACTS) await tx.query(sql, [contactKeys]);
  await tx.query(addToContacts(BY_CONTACT), [contactKeys]);
  await tx.query(addToContactSignals(BY_CONTACT), [contactKeys]);
}

/** Validates and stores events, one transaction per batch; see `LookupStore.ingest`. */
export async function ingestEvents(
  db: Database,
  source: Iterable<unknown> | AsyncIterable<unknown>,
  options: IngestOptions = {},
): Promise<IngestResult> {
  const batchSize = Math.max(1, options.batchSize ?? 1000);
  const rejected: IngestRejection[] = [];
  const progress: IngestProgress = { read: 0, ingested: 0, unchanged: 0, replaced: 0, rejected: 0 };
  let batch = new Map<string, StoredEvent>();

  const flush = async () => {
    if (batch.size === 0) return;
    const events = [...batch.values()];
    batch = new Map();
    const counts = await db.transaction((tx) => writeBatch(tx, events));
    progress.ingested += counts.ingested;
    progress.unchanged += counts.unchanged;
    progress.replaced += counts.replaced;
    progress.rejected = rejected.length;
    options.onProgress?.({ ...progress });
  };

  for await (const item of source) {
    const line = ++progress.read;
    if (typeof item === 'string' && item.trim() === '') continue;
    const parsed = parseEvent(item);
    if (!parsed.ok) {
      rejected.push({ line, reason: parsed.reason });
      continue;
    }
    const key = eventKey(parsed.event);
    // A second version of an id within one batch is applied after the first, as a replacement.
    if (batch.has(key)) await flush();
    batch.set(key, parsed.event);
    if (batch.size >= batchSize) await flush();
  }
  await flush();
  progress.rejected = rejected.length;
  if (rejected.length > 0) options.onProgress?.({ ...progress });
  return {
    ingested: progress.ingested,
    unchanged: progress.unchanged,
    replaced: progress.replaced,
    rejected,
  };
}
