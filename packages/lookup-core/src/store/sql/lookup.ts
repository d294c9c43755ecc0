/**
 * The lookup as one SQL statement that returns the response body as JSON text: one round trip,
 * and every part bounded by an index (a company by key, at most 10 contacts by last_seen, at most
 * 10 sessions and 10 LinkedIn entries per contact, at most 10 sessions for the intent).
 */
import type { LookupQuery } from '../../model/types.js';
import type { Database } from './db.js';

/** How many recent sessions (and LinkedIn entries) a lookup returns per contact. */
const ACTIVITY_LIMIT = 10;
/** How many contacts a lookup returns, most recently seen first. */
const CONTACT_LIMIT = 10;

/**
 * Purchase intent of a company or contact: the highest intent among its 10 most recent sessions
 * that started within 30 days of its latest session; `null` without sessions. Bounded, and exact
 * under replacement because it is read from the raw sessions, not kept as a running value.
 */
export const recentIntent = (filter: string) => `(
  SELECT max(r.intent) FROM (
    SELECT s.intent, s.seen_from, max(s.seen_from) OVER () AS latest FROM (
      SELECT e.intent, e.seen_from FROM events e
      WHERE ${filter} AND e.type = 'session' ORDER BY e.seen_from DESC LIMIT 10
    ) s
  ) r WHERE r.seen_from >= r.latest - interval '30 days')`;

const companyJson = `json_build_object(
  'domain', co.domain, 'name', co.name, 'industry', co.industry,
  'service_sessions', co.sessions::float8, 'service_visitors', co.visitors::float8,
  'service_first_seen', svc_iso(co.first_seen), 'service_last_seen', svc_iso(co.last_seen),
  'service_purchase_intent', svc_intent(coalesce(${recentIntent('e.workspace = co.workspace AND e.domain = co.domain')}, 0)))`;

const siteActivity = `'site_activity', coalesce((
  SELECT json_agg(json_build_object(
    'active_time', s.active_time::float8, 'start_time', svc_iso(s.seen_from), 'end_time', svc_iso(s.seen_to),
    'pages_visited', s.pages, 'signals', s.signals, 'referrer', s.referrer, 'intent', svc_intent(s.intent),
    'city', s.city, 'state', s.state, 'country', s.country) ORDER BY s.seen_from DESC, s.id)
  FROM (SELECT * FROM events e WHERE e.workspace = ct.workspace AND e.email = ct.email AND e.type = 'session'
        ORDER BY e.seen_from DESC, e.id LIMIT ${ACTIVITY_LIMIT}) s), '[]'::json)`;

const linkedinActivity = `'linkedin_activity', coalesce((
  SELECT json_agg(json_build_object(
    'start_time', l.start, 'linkedin_impressions', l.impressions::float8, 'linkedin_clicks', l.clicks::float8,
    'linkedin_likes', l.likes::float8, 'linkedin_shares', l.shares::float8, 'linkedin_comments', l.comments::float8)
    ORDER BY l.seen_from DESC, l.id)
  FROM (SELECT e.*, svc_iso(e.seen_from) AS start FROM events e
        WHERE e.workspace = ct.workspace AND e.email = ct.email AND e.type = 'linkedin'
        ORDER BY e.seen_from DESC, e.id LIMIT ${ACTIVITY_LIMIT}) l), '[]'::json)`;

const contactJson = (withActivity: boolean) => `json_build_object(
  'email', ct.email, 'name', ct.name, 'title', ct.title, 'service_sessions', ct.sessions::float8,
  'service_first_seen', svc_iso(ct.first_seen), 'service_last_seen', svc_iso(ct.last_seen)
  ${withActivity ? `, ${siteActivity}, ${linkedinActivity}` : ''})`;

/** `$1` workspace, `$2` the email or the domain. */
const lookupSql = (by: 'email' | 'domain', withActivity: boolean) => `
WITH co AS (
  SELECT * FROM companies WHERE workspace = $1 AND domain = ${
    by === 'email'
      ? '(SELECT company_domain FROM contacts WHERE workspace = $1 AND email = $2)'
      : '$2'
  }
), ct AS (
  -- By domain, the key itself: the contacts then come in contacts_by_company's order, no sort.
  SELECT c.* FROM contacts c
  WHERE c.workspace = $1 AND ${by === 'email' ? 'c.email = $2' : 'c.company_domain = $2'}
  ORDER BY c.last_seen DESC, c.email LIMIT ${CONTACT_LIMIT}
)
SELECT json_build_object(
  'company', ${companyJson},
  'contacts', coalesce((SELECT json_agg(${contactJson(withActivity)} ORDER BY ct.last_seen DESC, ct.email) FROM ct), '[]'::json)
)::text AS body, co.domain, (SELECT json_agg(ct.email) FROM ct)::text AS emails
FROM co`;

const QUERIES = {
  email: [lookupSql('email', false), lookupSql('email', true)],
  domain: [lookupSql('domain', false), lookupSql('domain', true)],
} as const;

/**
 * A found answer: the body as compact JSON, and what it was read from (the company's
 * domain and the emails of the contacts it lists), so a cache knows which changes touch it.
 */
export interface Answer {
  body: string;
  domain: string;
  emails: string[];
}

/** The answer to `query`, or `null` when nothing matching was observed. */
export async function lookupAnswer(db: Database, query: LookupQuery): Promise<Answer | null> {
  const by = query.email !== undefined ? 'email' : 'domain';
  const value = query.email ?? query.domain;
  if (value === undefined) return null;
  const sql = QUERIES[by][query.includeActivity ? 1 : 0];
  const [row] = await db.prepared(sql, [query.workspace, value]);
  if (row === undefined) return null;
  const [body, domain, emails] = row;
  // PostgreSQL renders `"key" : value`; the answer goes out as JSON.stringify would write it.
  return {
    body: JSON.stringify(JSON.parse(body ?? 'null')),
    domain: domain ?? '',
    emails: JSON.parse(emails ?? '[]'),
  };
}
