// Reads through Bulk API 2.0 query jobs: an object whose query counts at least the read
// threshold is read by a job (paged results with Sforce-Locator and maxRecords), and the
// records equal those the REST path reads, typed as REST gives them.

import { seedOrg } from '@service/salesforce-emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import { readCrm, readRecords, setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator({ validateSchema: false, pageSize: 40 });

beforeAll(async () => {
  const { emulator } = env;
  await setUpFields(connectTo(emulator));
  const { accounts, contacts } = seedOrg(emulator.org, {
    companies: 120,
    leads: 30,
    opportunities: 40,
  });
  // Service values of every type the reads carry back: numbers, datetimes, text that needs
  // quoting in CSV, and nulls.
  for (const [i, id] of [...accounts, ...contacts].entries()) {
    const record =
      emulator.org.table('Account').get(id) ?? emulator.org.table('Contact').get(id) ?? {};
    Object.assign(record, {
      ServiceSessions__c: i % 5 === 0 ? null : i,
      ServiceFirstSeen__c:
        i % 7 === 0 ? null : `2026-01-${String((i % 28) + 1).padStart(2, '0')}T09:00:00.000Z`,
      ServiceIntents__c: i % 3 === 0 ? `Pricing, "Docs"\nBlog ${i}` : `Docs ${i}`,
    });
  }
});

/** Records as compared: no `attributes` (bulk rows carry none), datetimes as instants, by Id. */
function normalized(records: readonly object[]): unknown[] {
  const clean = (value: unknown): unknown => {
    if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT/.test(value))
      return new Date(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2')).toISOString();
    if (value === null || typeof value !== 'object') return value;
    return Object.fromEntries(
      Object.entries(value)
        .filter(([key]) => key !== 'attributes')
        .map(([key, v]) => [key, clean(v)]),
    );
  };
  return records
    .map(clean)
    .sort((a, b) => String((a as { Id: string }).Id).localeCompare((b as { Id: string }).Id));
}

describe('readCrm with Bulk API 2.0', () => {
  it('reads objects at the threshold through paged query jobs, the same records as REST', async () => {
    const { emulator } = env;
    const viaRest = await readCrm(connectTo(emulator), { bulk: false, ownerSync: true });
    expect(emulator.count('POST', /\/jobs\/query$/)).toBe(0);
    emulator.bulk.pollsBeforeDone = 2;
    const from = emulator.requests.length;
    const viaBulk = await readCrm(connectTo(emulator), {
      ownerSync: true,
      bulk: { readThreshold: 100, pageSize: 50, polling: { initialDelayMs: 1, maxDelayMs: 2 } },
    });
    const during = emulator.requests.slice(from);
    // Accounts and Contacts (120 each) through jobs; Leads (30) and Opportunities (40) on REST.
    const jobs = during.filter((r) => r.method === 'POST' && r.path.endsWith('/jobs/query'));
    expect(jobs.map((r) => JSON.parse(r.body).query)).toEqual([
      expect.stringMatching(/FROM Account/),
      expect.stringMatching(/FROM Contact/),
    ]);
    // Accounts are described once, though read twice (the subquery, then a job without it).
    expect(during.filter((r) => r.path.endsWith('/Account/describe'))).toHaveLength(1);
    const pages = during.filter((r) => r.path.endsWith('/results'));
    expect(pages).toHaveLength(2 * 3); // 120 records in pages of at most 50
    expect(pages.every((r) => r.query.get('maxRecords') === '50')).toBe(true);
    expect(pages.filter((r) => r.query.has('locator'))).toHaveLength(2 * 2);
    for (const object of ['accounts', 'contacts', 'leads', 'opportunities'] as const) {
      expect(viaBulk[object]).toHaveLength(viaRest[object].length);
      expect(normalized(viaBulk[object])).toEqual(normalized(viaRest[object]));
    }
    expect(JSON.stringify(viaBulk.accounts[0])).toMatch(/"Owner":\{"Email":"[^"]+@/);
  });

  it('types the Service values as REST does: numbers, datetimes, quoted text, nulls', async () => {
    const { emulator } = env;
    const fields = ['ServiceSessions__c', 'ServiceFirstSeen__c', 'ServiceIntents__c'];
    const connection = connectTo(emulator);
    const viaRest = await readRecords<Record<string, unknown>>(connection, 'Account', { fields });
    const jobs = emulator.count('POST', /\/jobs\/query$/);
    const viaBulk = await readRecords<Record<string, unknown>>(connection, 'Account', {
      fields,
      bulk: { threshold: 100, pageSize: 50, polling: { initialDelayMs: 1, maxDelayMs: 2 } },
    });
    expect(emulator.count('POST', /\/jobs\/query$/) - jobs).toBe(1);
    expect(normalized(viaBulk.records)).toEqual(normalized(viaRest.records));
    const values = (field: string) =>
      new Set(viaBulk.records.map((r) => (r[field] === null ? 'null' : typeof r[field])));
    expect(values('ServiceSessions__c')).toEqual(new Set(['number', 'null']));
    expect(values('ServiceFirstSeen__c')).toEqual(new Set(['string', 'null']));
    expect(viaBulk.records.some((r) => String(r.ServiceIntents__c).includes('"Docs"\nBlog'))).toBe(
      true,
    );
    expect(viaBulk.records.find((r) => r.ServiceFirstSeen__c)?.ServiceFirstSeen__c).toMatch(
      /\+0000$/,
    );
  });

  it('keeps the API usage current through the job calls, from Sforce-Limit-Info as REST does', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    const before = await connection.limits();
    const from = emulator.requests.length;
    await readRecords(connection, 'Account', {
      bulk: { threshold: 100, pageSize: 50, polling: { initialDelayMs: 1, maxDelayMs: 2 } },
    });
    const sent = emulator.requests.slice(from);
    expect(sent.at(-1)?.path).toMatch(/\/jobs\/query\/\w+\/results$/);
    expect(connection.usage).toEqual({ used: before.used + sent.length, max: before.max });
  });

  it('says why a query with a child subquery cannot be read through a job', async () => {
    // Unsaid, this was the 100,000-record re-sync's "unexpected error:" with nothing after it.
    const error = await readRecords(connectTo(env.emulator), 'Account', {
      children: [{ relationship: 'Opportunities', fields: ['Id'] }],
      bulk: { threshold: 100, pageSize: 50 },
    }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(
      /^120 records match a query with a child subquery, which a Bulk API job cannot run: SELECT /,
    );
  });

  it('renews a session that expires between the calls of a job, and goes on', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    emulator.inject({ kind: 'expired-session', method: 'GET', path: /\/results$/ });
    const read = await readRecords(connection, 'Account', {
      bulk: { threshold: 100, pageSize: 50, polling: { initialDelayMs: 1, maxDelayMs: 2 } },
    });
    expect(read.records).toHaveLength(120);
    expect(connection.stats.refreshes).toBe(1);
  });
});
