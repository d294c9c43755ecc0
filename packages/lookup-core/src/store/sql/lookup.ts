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

/**
 * The answer is written as text by the statement, exactly as `JSON.stringify` writes it, so a miss
 * sends the database's bytes with no parse and serialise round trip in Node, and PostgreSQL builds
 * no JSON values to print (figures: docs/design/2026-11-29-lookup-at-the-limit.md). What makes the
 * text exact:
 * - strings go through `to_json`, whose escapes are `JSON.stringify`'s (`\"`, `\\`, `\b`, `\f`,
 *   `\n`, `\r`, `\t`, other controls as lowercase `\u00xx`; text is valid UTF-8, so no lone
 *   surrogates);
 * - counts are bigints, printed as their digits, which is how `JSON.stringify` prints every integer
 *   up to 2^53-1 (the sums are held below it, migration 2);
 * - an event's pages and signals are the JSON text ingest wrote with `JSON.stringify`, sent as
 *   stored (migration 8 made older rows compact).
 */
const str = (value: string) => `coalesce(to_json(${value})::text, 'null')`;
const time = (value: string) => `'"' || svc_iso(${value}) || '"'`;
/** `{"key":value,...}` from `[key, SQL text of the value]` pairs, in this order. */
const object = (members: Array<[string, string]>) =>
  `'{' || ${members.map(([key, value], i) => `'${i === 0 ? '' : ','}"${key}":' || ${value}`).join(' || ')} || '}'`;
/** `[item,...]` of `item` over `rows`, in `order`; `[]` when there is none. */
const list = (item: string, rows: string, order: string) =>
  `'[' || coalesce((SELECT string_agg(${item}, ',' ORDER BY ${order}) FROM ${rows}), '') || ']'`;

const companyJson = object([
  ['domain', str('co.domain')],
  ['name', str('co.name')],
  ['industry', str('co.industry')],
  ['service_sessions', 'co.sessions'],
  ['service_visitors', 'co.visitors'],
  ['service_first_seen', time('co.first_seen')],
  ['service_last_seen', time('co.last_seen')],
  [
    'service_purchase_intent',
    str(
      `svc_intent(coalesce(${recentIntent('e.workspace = co.workspace AND e.domain = co.domain')}, 0))`,
    ),
  ],
]);

/**
 * The contact `ct`'s 10 most recent events of type `type`, newest first, each written as an
 * object of `members` (read from the event as `s`).
 */
const recentActivity = (type: string, members: Array<[string, string]>) =>
  list(
    object(members),
    `(SELECT * FROM events e
  WHERE e.workspace = ct.workspace AND e.email = ct.email AND e.type = '${type}'
  ORDER BY e.seen_from DESC, e.id LIMIT ${ACTIVITY_LIMIT}) s`,
    's.seen_from DESC, s.id',
  );

const siteActivity = recentActivity('session', [
  ['active_time', 's.active_time'],
  ['start_time', time('s.seen_from')],
  ['end_time', time('s.seen_to')],
  ['pages_visited', 's.pages::text'],
  ['signals', 's.signals::text'],
  ['referrer', str('s.referrer')],
  ['intent', str('svc_intent(s.intent)')],
  ['city', str('s.city')],
  ['state', str('s.state')],
  ['country', str('s.country')],
]);

const linkedinActivity = recentActivity('linkedin', [
  ['start_time', time('s.seen_from')],
  ['linkedin_impressions', 's.impressions'],
  ['linkedin_clicks', 's.clicks'],
  ['linkedin_likes', 's.likes'],
  ['linkedin_shares', 's.shares'],
  ['linkedin_comments', 's.comments'],
]);

const contactJson = (withActivity: boolean) =>
  object([
    ['email', str('ct.email')],
    ['name', str('ct.name')],
    ['title', str('ct.title')],
    ['service_sessions', 'ct.sessions'],
    ['service_first_seen', time('ct.first_seen')],
    ['service_last_seen', time('ct.last_seen')],
    ...(withActivity
      ? ([
          ['site_activity', siteActivity],
          ['linkedin_activity', linkedinActivity],
        ] as Array<[string, string]>)
      : []),
  ]);

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
SELECT ${object([
  ['company', companyJson],
  ['contacts', list(contactJson(withActivity), 'ct', 'ct.last_seen DESC, ct.email')],
])} AS body, co.domain, (SELECT json_agg(ct.email) FROM ct)::text AS emails
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
  return {
    body: body ?? 'null',
    domain: domain ?? '',
    emails: JSON.parse(emails ?? '[]'),
  };
}
