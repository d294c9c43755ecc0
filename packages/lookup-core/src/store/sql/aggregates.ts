/** `readAggregates`: every company of a workspace with all its contacts, read in pages by domain. */
import type { ContactAggregate, ObservedCompany } from '../../model/types.js';
import type { Queryable } from './db.js';
import { recentIntent } from './lookup.js';

const PAGE_SIZE = 100;

/** Source (referrer, utm) and geo of the earliest or latest session matching `filter`. */
const session = (filter: string, order: 'ASC' | 'DESC') => `(
  SELECT json_build_object('referrer', e.referrer, 'utm', e.utm, 'city', e.city, 'state', e.state, 'country', e.country)
  FROM events e WHERE ${filter} AND e.type = 'session' ORDER BY e.seen_from ${order}, e.id LIMIT 1)`;

const activity = (t: string, filter: string, signalsTable: string, signalsFilter: string) => `
  'sessions', ${t}.sessions, 'activeSeconds', ${t}.active_seconds,
  'pageViews', ${t}.page_views, 'highIntentSessions', ${t}.high_intent_sessions,
  'purchaseIntent', svc_intent(${recentIntent(filter)}),
  'signals', coalesce((SELECT json_agg(g.signal ORDER BY g.signal) FROM ${signalsTable} g WHERE ${signalsFilter}), '[]'::json),
  'firstSeen', svc_iso(${t}.first_seen), 'lastSeen', svc_iso(${t}.last_seen),
  'firstSession', ${session(filter, 'ASC')}, 'latestSession', ${session(filter, 'DESC')},
  'linkedin', json_build_object('impressions', ${t}.impressions, 'clicks', ${t}.clicks,
    'likes', ${t}.likes, 'shares', ${t}.shares, 'comments', ${t}.comments)`;

const COMPANIES_PAGE = `
SELECT json_build_object(
  'domain', co.domain, 'name', co.name, 'industry', co.industry, 'visitors', co.visitors,
  ${activity(
    'co',
    'e.workspace = co.workspace AND e.domain = co.domain',
    'company_signals',
    'g.workspace = co.workspace AND g.domain = co.domain',
  )}
)::text AS json
FROM companies co WHERE co.workspace = $1 AND co.domain > $2 ORDER BY co.domain LIMIT ${PAGE_SIZE}`;

const CONTACTS_OF = `
SELECT ct.company_domain AS domain, json_build_object(
  'email', ct.email, 'name', ct.name, 'title', ct.title, 'companyDomain', ct.company_domain,
  ${activity(
    'ct',
    'e.workspace = ct.workspace AND e.email = ct.email',
    'contact_signals',
    'g.workspace = ct.workspace AND g.email = ct.email',
  )}
)::text AS json
FROM contacts ct
WHERE ct.workspace = $1 AND ct.company_domain IN (SELECT jsonb_array_elements_text($2::jsonb))
ORDER BY ct.company_domain, ct.last_seen DESC, ct.email`;

interface SessionRow {
  referrer: string;
  utm: Record<string, string>;
  city: string | null;
  state: string | null;
  country: string | null;
}
type Raw = Record<string, unknown> & {
  firstSession: SessionRow | null;
  latestSession: SessionRow | null;
};

const source = (s: SessionRow | null) => (s ? { referrer: s.referrer, utm: s.utm } : null);

function activityOf(raw: Raw) {
  return {
    ...raw,
    firstSession: source(raw.firstSession),
    latestSession: source(raw.latestSession),
  };
}

export async function* readAggregates(
  db: Queryable,
  workspace: string,
): AsyncIterable<ObservedCompany> {
  let after = '';
  for (;;) {
    const page = await db.query<{ json: string }>(COMPANIES_PAGE, [workspace, after]);
    if (page.length === 0) return;
    const companies = page.map((row) => JSON.parse(row.json) as Raw & { domain: string });
    const contactRows = await db.query<{ domain: string; json: string }>(CONTACTS_OF, [
      workspace,
      JSON.stringify(companies.map((c) => c.domain)),
    ]);
    const contactsByDomain = new Map<string, ContactAggregate[]>();
    for (const row of contactRows) {
      const raw = JSON.parse(row.json) as Raw;
      const latest = raw.latestSession;
      const contact = {
        ...activityOf(raw),
        city: latest?.city ?? null,
        state: latest?.state ?? null,
        country: latest?.country ?? null,
      } as unknown as ContactAggregate;
      const list = contactsByDomain.get(row.domain) ?? [];
      list.push(contact);
      contactsByDomain.set(row.domain, list);
    }
    for (const raw of companies) {
      const contacts = contactsByDomain.get(raw.domain) ?? [];
      const company = {
        ...activityOf(raw),
        identifiedContacts: contacts.length,
      } as unknown as ObservedCompany['company'];
      yield { company, contacts };
    }
    after = companies[companies.length - 1]?.domain ?? after;
    if (page.length < PAGE_SIZE) return;
  }
}
