/**
 * The one SQL schema of the store, as versioned migrations applied in order on open. Every table is
 * keyed by workspace first, so data can be distributed by that column and no query crosses tenants.
 * Append new migrations; never edit one that has shipped.
 */
import { SchemaVersionError } from '../../model/errors.js';
import type { Database, Queryable } from './db.js';

/** The activity columns companies and contacts share, as of migration 1 (frozen with it). */
const ACTIVITY_V1 = `sessions bigint NOT NULL, active_seconds bigint NOT NULL, page_views bigint NOT NULL,
  high_intent_sessions bigint NOT NULL, first_seen timestamptz NOT NULL, last_seen timestamptz NOT NULL,
  impressions bigint NOT NULL, clicks bigint NOT NULL, likes bigint NOT NULL, shares bigint NOT NULL,
  comments bigint NOT NULL`;

const MIGRATIONS: ReadonlyArray<{ version: number; sql: string }> = [
  {
    version: 1,
    sql: `
-- Raw events, kept for activity and for exact replace-on-same-id.
CREATE TABLE events (
  workspace text NOT NULL,
  type text NOT NULL,
  id text NOT NULL,
  hash text NOT NULL,
  domain text NOT NULL,
  company_name text,
  industry text,
  email text,
  contact_name text,
  title text,
  visitor_id text,
  seen_from timestamptz NOT NULL,
  seen_to timestamptz NOT NULL,
  active_time bigint NOT NULL,
  pages jsonb NOT NULL,
  page_count integer NOT NULL,
  signals jsonb NOT NULL,
  referrer text NOT NULL,
  utm jsonb NOT NULL,
  intent smallint NOT NULL,
  city text,
  state text,
  country text,
  impressions bigint NOT NULL,
  clicks bigint NOT NULL,
  likes bigint NOT NULL,
  shares bigint NOT NULL,
  comments bigint NOT NULL,
  PRIMARY KEY (workspace, type, id)
);
CREATE INDEX events_by_company ON events (workspace, domain, type, seen_from DESC);
CREATE INDEX events_by_contact ON events (workspace, email, type, seen_from DESC) WHERE email IS NOT NULL;

CREATE TABLE companies (
  workspace text NOT NULL,
  domain text NOT NULL,
  name text,
  industry text,
  profile_at timestamptz,
  visitors bigint NOT NULL DEFAULT 0,
  ${ACTIVITY_V1},
  PRIMARY KEY (workspace, domain)
);

CREATE TABLE contacts (
  workspace text NOT NULL,
  email text NOT NULL,
  company_domain text NOT NULL,
  company_at timestamptz NOT NULL,
  name text,
  title text,
  profile_at timestamptz,
  ${ACTIVITY_V1},
  PRIMARY KEY (workspace, email)
);
CREATE INDEX contacts_by_company ON contacts (workspace, company_domain, last_seen DESC, email);

-- Distinct sets kept as rows so they grow on ingest without re-reading events.
CREATE TABLE company_visitors (
  workspace text NOT NULL, domain text NOT NULL, visitor_id text NOT NULL,
  PRIMARY KEY (workspace, domain, visitor_id)
);
CREATE TABLE company_signals (
  workspace text NOT NULL, domain text NOT NULL, signal text NOT NULL,
  PRIMARY KEY (workspace, domain, signal)
);
CREATE TABLE contact_signals (
  workspace text NOT NULL, email text NOT NULL, signal text NOT NULL,
  PRIMARY KEY (workspace, email, signal)
);

-- The wire format of every timestamp: ISO 8601, UTC, milliseconds.
CREATE FUNCTION svc_iso(timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;
CREATE FUNCTION svc_intent(integer) RETURNS text LANGUAGE sql IMMUTABLE AS
  $$ SELECT (ARRAY['low', 'medium', 'high', 'very_high'])[$1 + 1] $$;
`,
  },
  {
    version: 2,
    // Sums stay exact integers of a JSON number (2^53-1): a batch that would pass it fails, and
    // ingest retries it without the line whose addition did (ingest.ts).
    sql: ['companies', 'contacts']
      .map(
        (
          table,
        ) => `ALTER TABLE ${table} ADD CONSTRAINT ${table}_sums_exact CHECK (greatest(sessions,
  active_seconds, page_views, high_intent_sessions, impressions, clicks, likes, shares, comments${
    table === 'companies' ? ', visitors' : ''
  }) <= 9007199254740991);`,
      )
      .join('\n'),
  },
  {
    version: 3,
    // Keys compare as bytes: every B-tree insert and probe of ingest then skips the server locale's
    // collation (a fifth of the raw events insert on a C.UTF-8 server, more under en_US), and both
    // stores order keys alike (PGlite's database is already "C").
    sql: Object.entries({
      events: ['workspace', 'type', 'id', 'domain', 'email'],
      companies: ['workspace', 'domain'],
      contacts: ['workspace', 'email', 'company_domain'],
      company_visitors: ['workspace', 'domain', 'visitor_id'],
      company_signals: ['workspace', 'domain', 'signal'],
      contact_signals: ['workspace', 'email', 'signal'],
    })
      .map(
        ([table, columns]) =>
          `ALTER TABLE ${table} ${columns.map((c) => `ALTER COLUMN ${c} TYPE text COLLATE "C"`).join(', ')};`,
      )
      .join('\n'),
  },
  {
    version: 4,
    // An event's lists are only ever sent back whole: kept as the JSON text ingest wrote, which
    // PostgreSQL checks in a fraction of the time it takes to convert it to jsonb.
    sql: `ALTER TABLE events ${['pages', 'signals', 'utm'].map((c) => `ALTER COLUMN ${c} TYPE json USING ${c}::json`).join(', ')};`,
  },
  {
    version: 5,
    // Each batch updates every company it names once. With room left on its page, the new version
    // stays beside the old one (a HOT update: no new index entry, and the next batch reclaims the
    // old version's space) (figures: docs/design/2026-11-27-measured-choices.md). Contacts cannot gain so: contacts_by_company holds
    // last_seen, which every update changes. Pages written before this keep their fill.
    sql: 'ALTER TABLE companies SET (fillfactor = 50);',
  },
  {
    version: 6,
    // `to_char` is STABLE, so an IMMUTABLE wrapper around it is never inlined: every timestamp of
    // an answer (hundreds with activity) ran the SQL-function executor. Declared STABLE, the
    // planner inlines it into the lookup statement.
    sql: `CREATE OR REPLACE FUNCTION svc_iso(timestamptz) RETURNS text LANGUAGE sql STABLE AS
  $$ SELECT to_char($1 AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') $$;`,
  },
  {
    version: 7,
    // The change log: what each ingest batch changed, written in its transaction, read by every
    // server's cache on whatever server it reads from (store/change-log.ts). `xid` is the writing
    // transaction's, so a reader knows when every row below a point has committed.
    sql: `CREATE TABLE service_lookup_changes (
  position bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  xid xid8 NOT NULL DEFAULT pg_current_xact_id(),
  logged_at timestamptz NOT NULL DEFAULT now(),
  notice text NOT NULL
);
CREATE INDEX service_lookup_changes_by_xid ON service_lookup_changes (xid);`,
  },
  {
    version: 8,
    // Answers send an event's pages and signals as their stored text (store/sql/lookup.ts), which
    // must be the compact form JSON.stringify writes. Rows converted from jsonb by migration 4 were
    // printed by jsonb, which puts a space after each comma: `["/", "/docs"]`. Inside compact JSON a
    // quote is escaped, so `", "` (quote, comma, space, quote) occurs only between two elements of
    // such a row, and removing the space there gives the compact form.
    sql: ['pages', 'signals']
      .map(
        (column) =>
          `UPDATE events SET ${column} = replace(${column}::text, '", "', '","')::json WHERE ${column}::text LIKE '%", "%';`,
      )
      .join('\n'),
  },
];

/** The version of the last migration: a database recording it is current. */
export const LATEST_MIGRATION = MIGRATIONS.reduce((latest, m) => Math.max(latest, m.version), 0);

/** Applies the migrations not yet recorded, in one transaction, serialised across processes. */
export async function migrate(db: Database): Promise<void> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS service_lookup_migrations (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  await db.transaction(async (tx) => {
    // Two processes opening the same database at once must not both apply a migration.
    await tx.query('SELECT pg_advisory_xact_lock(7355608)');
    const rows = await tx.query<{ version: number }>(
      'SELECT version FROM service_lookup_migrations',
    );
    const applied = new Set(rows.map((r) => Number(r.version)));
    for (const m of MIGRATIONS) {
      if (applied.has(m.version)) continue;
      await tx.exec(m.sql);
      await tx.query('INSERT INTO service_lookup_migrations (version) VALUES ($1)', [m.version]);
    }
  });
}

/**
 * On a server that takes no writes (a hot standby), where nothing can be migrated: checks that the
 * schema the primary wrote is the one this version needs, saying what to do when it is not.
 */
export async function checkSchema(db: Queryable): Promise<void> {
  let version: number;
  try {
    const rows = await db.query<{ version: number | null }>(
      'SELECT max(version) AS version FROM service_lookup_migrations',
    );
    version = Number(rows[0]?.version ?? 0);
  } catch (error) {
    // 42P01 undefined_table: nothing ever migrated this database.
    if ((error as { code?: unknown }).code !== '42P01') throw error;
    version = 0;
  }
  if (version === 0)
    throw new SchemaVersionError(
      'the server is read-only and its primary was never migrated: open the store on the primary once (service-lookup ingest or serve there), then here',
    );
  if (version < LATEST_MIGRATION)
    throw new SchemaVersionError(
      `the server is read-only and its primary's schema is at version ${version}, this version needs ${LATEST_MIGRATION}: open the store on the primary with this version first, which migrates it`,
    );
  if (version > LATEST_MIGRATION)
    throw new SchemaVersionError(
      `the server is read-only and its primary's schema is at version ${version}, newer than this version knows (${LATEST_MIGRATION}): upgrade @service/lookup-core here`,
    );
}
