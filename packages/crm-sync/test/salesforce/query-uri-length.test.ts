// A query sent by GET travels percent-encoded in the URI, and Salesforce answers 414 when the URI
// and headers together pass 16,384 bytes. Long IN lists are cut into queries that fit.

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { packTerms } from '../../src/index.js';
import { MAX_URI_AND_HEADERS, queryUriBound } from '../../src/salesforce/read/query-uri.js';
import { readRecords } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator();

/** The percent-encoded SOQL of each query the emulator answered since `from`. */
const queriesSince = (from: number) =>
  env.emulator.requests
    .slice(from)
    .filter((r) => r.path.endsWith('/query'))
    .map((r) => ({ bytes: encodeURIComponent(r.query.get('q') ?? '').length, status: r.status }));

describe('queries within the URI length Salesforce accepts', () => {
  it('packs terms by their percent-encoded length, in order, none left out', () => {
    const emails = Array.from({ length: 2500 }, (_, i) => `'firstname.lastname${i}@example.com'`);
    const compose = (list: string) => `SELECT Id, Email FROM Contact WHERE Email IN (${list})`;
    const queries = packTerms(emails, ', ', compose, queryUriBound);
    expect(queries.length).toBeGreaterThan(1);
    for (const soql of queries)
      expect(encodeURIComponent(soql).length).toBeLessThanOrEqual(queryUriBound.maxLength);
    const packed = queries.flatMap((q) => /IN \((.*)\)$/.exec(q)?.[1]?.split(', ') ?? []);
    expect(packed).toEqual(emails);
  });

  it('is answered 414 by the org past 16,384 bytes of URI and headers', async () => {
    const connection = connectTo(env.emulator);
    const ids = Array.from(
      { length: 800 },
      (_, i) => `'003000000000${String(i).padStart(3, '0')}AAA'`,
    );
    const soql = `SELECT Id FROM Contact WHERE Id IN (${ids.join(', ')})`;
    expect(encodeURIComponent(soql).length).toBeGreaterThan(MAX_URI_AND_HEADERS);
    const refused = await connection
      .rest('GET', `/query?q=${encodeURIComponent(soql)}`)
      .catch((error: unknown) => error);
    expect(refused).toMatchObject({ status: 414 });
  });

  it('reads 3,000 records by id in queries that each fit the URI', async () => {
    const { emulator } = env;
    const { contacts } = seedOrg(emulator.org, { companies: 3000 });
    const from = emulator.requests.length;
    const { records } = await readRecords<{ Id: string }>(connectTo(emulator), 'Contact', {
      where: [{ field: 'Id', in: contacts }],
    });
    expect(records.map((r) => r.Id).sort()).toEqual([...contacts].sort());
    const queries = queriesSince(from);
    expect(queries.length).toBeGreaterThan(1);
    for (const { bytes, status } of queries) {
      expect(status).toBe(200);
      expect(bytes).toBeLessThanOrEqual(queryUriBound.maxLength);
    }
  });
});
