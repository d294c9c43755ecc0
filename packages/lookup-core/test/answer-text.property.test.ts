/**
 * The answer's text, property-based, on both stores: the statement writes the answer as text
 * (store/sql/lookup.ts), so each string it holds must come out escaped exactly as JSON.stringify
 * escapes it. An event with hostile text in every field the answer shows (quotes, backslashes,
 * control characters, line and paragraph separators, astral characters) is looked up, and the
 * answer must be byte for byte the answer of the same event with plain text, serialised again with
 * the hostile values put in their places. A database whose older rows hold pages in jsonb's print
 * (`["/", "/docs"]`) answers them compact once migration 8 ran.
 */

import { createTestDatabase, requires } from '@service/test-support';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { type LookupStore, openEmbeddedStore, openPostgresStore } from '../src/index.js';
import { linkedin, session } from './support/events.js';

/** Characters whose escapes differ between careless serialisers, mixed with plain ones. */
const tricky = fc.constantFrom(
  'a',
  ' ',
  '"',
  '\\',
  '/',
  '\n',
  '\r',
  '\t',
  '\b',
  '\f',
  '\u0001',
  '\u001f',
  '\u007f',
  '\u2028',
  '\u2029',
  'é',
  '😀',
  '<',
  "'",
  ', "',
);
/** Hostile text that trimming leaves whole (ingest trims profile fields). */
const text = fc.string({ unit: tricky, minLength: 1, maxLength: 12 }).map((s) => `x${s}x`);

const hostile = fc.record({
  companyName: text,
  industry: text,
  contactName: text,
  title: text,
  referrer: text,
  pages: fc.array(text, { minLength: 0, maxLength: 4 }),
  // Distinct: an event keeps each signal once.
  signals: fc.uniqueArray(text, { minLength: 1, maxLength: 3 }),
  city: text,
  state: text,
  country: text,
});
type Hostile = typeof hostile extends fc.Arbitrary<infer T> ? T : never;

const PLAIN: Hostile = {
  companyName: 'Plain Co',
  industry: 'Plain',
  contactName: 'Pat Plain',
  title: 'Plain title',
  referrer: 'https://plain.example/',
  pages: ['/plain'],
  signals: ['plain'],
  city: 'Plainville',
  state: 'Plain State',
  country: 'PL',
};

/** One company with one contact, a session and a LinkedIn entry, holding `v`'s text. */
function eventsOf(id: string, v: Hostile) {
  const domain = `${id}.example`;
  const contact = { email: `pat@${domain}`, name: v.contactName, title: v.title };
  return [
    session(`${id}-s`, '2025-04-01T10:00:00.000Z', {
      company: { domain, name: v.companyName, industry: v.industry },
      contact,
      referrer: v.referrer,
      pages_visited: v.pages,
      signals: v.signals,
      city: v.city,
      state: v.state,
      country: v.country,
      active_time: 2 ** 31 - 1,
    }),
    linkedin(`${id}-l`, '2025-04-02T10:00:00.000Z', {
      company: { domain },
      contact,
      impressions: 2 ** 31 - 1,
    }),
  ];
}

type Answer = {
  company: Record<string, unknown>;
  contacts: Array<Record<string, unknown> & { site_activity: Array<Record<string, unknown>> }>;
};

/** The plain answer with `v`'s values in the places the answer shows them. */
function withValues(plain: Answer, v: Hostile, domain: string): Answer {
  const [contact] = plain.contacts;
  const [activity] = contact?.site_activity ?? [];
  return {
    ...plain,
    company: { ...plain.company, domain, name: v.companyName, industry: v.industry },
    contacts: [
      {
        ...contact,
        email: `pat@${domain}`,
        name: v.contactName,
        title: v.title,
        site_activity: [
          {
            ...activity,
            pages_visited: v.pages,
            signals: v.signals,
            referrer: v.referrer,
            city: v.city,
            state: v.state,
            country: v.country,
          },
        ],
      } as Answer['contacts'][number],
    ],
  };
}

function describeAnswerText(name: string, open: () => Promise<LookupStore>) {
  it(`${name}: hostile text is escaped as JSON.stringify escapes it`, async () => {
    const store = await open();
    try {
      await store.ingest(eventsOf('plain', PLAIN));
      const read = async (domain: string) => {
        const text = await store.lookupText?.({
          workspace: 'default',
          domain,
          includeActivity: true,
        });
        return typeof text === 'string' ? text : new TextDecoder().decode(text ?? undefined);
      };
      const plain = JSON.parse(await read('plain.example')) as Answer;
      expect(plain.contacts[0]?.site_activity).toHaveLength(1);
      let n = 0;
      await fc.assert(
        fc.asyncProperty(hostile, async (v) => {
          const id = `h${n++}`;
          await store.ingest(eventsOf(id, v));
          const text = await read(`${id}.example`);
          expect(text).toBe(JSON.stringify(withValues(plain, v, `${id}.example`)));
        }),
        { numRuns: 60 },
      );
    } finally {
      await store.close();
    }
    // 60 ingests and lookups: 4-7 s on the embedded store with the other test files running.
  }, 60_000);
}

describeAnswerText('embedded store', () => openEmbeddedStore());

const database = await createTestDatabase();
describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeAnswerText('PostgreSQL store', () =>
    openPostgresStore({ connectionString: database.url }),
  );

  it('rows printed by jsonb before migration 4 are answered compact after migration 8', async () => {
    const store = await openPostgresStore({ connectionString: database.url });
    await store.ingest(
      eventsOf('legacy', { ...PLAIN, pages: ['/', 'a", "b', '/docs'], signals: ['one', 'two'] }),
    );
    const answer = () =>
      store.lookupText?.({ workspace: 'default', domain: 'legacy.example', includeActivity: true });
    const compact = await answer();
    await store.close();

    // The rows as a database migrated from jsonb holds them, and its schema back at version 7.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(
        `UPDATE events SET pages = pages::jsonb::text::json, signals = signals::jsonb::text::json
         WHERE domain = 'legacy.example' AND type = 'session'`,
      );
      const [row] = (await client.query("SELECT pages::text FROM events WHERE id = 'legacy-s'"))
        .rows;
      expect(row.pages).toBe('["/", "a\\", \\"b", "/docs"]');
      await client.query('DELETE FROM service_lookup_migrations WHERE version >= 8');
    } finally {
      await client.end();
    }

    const reopened = await openPostgresStore({ connectionString: database.url });
    try {
      const text = await reopened.lookupText?.({
        workspace: 'default',
        domain: 'legacy.example',
        includeActivity: true,
      });
      expect(text).toBe(compact);
      expect(JSON.parse(String(text)).contacts[0].site_activity[0].pages_visited).toEqual([
        '/',
        'a", "b',
        '/docs',
      ]);
    } finally {
      await reopened.close();
    }
  });
});
