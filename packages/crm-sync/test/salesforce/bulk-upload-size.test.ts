// The Bulk API 2.0 upload limit is a size in bytes of the CSV as sent (UTF-8): text outside
// ASCII takes two to four bytes a character, so a job is cut by bytes, not by characters.
// https://developer.salesforce.com/docs/atlas.en-us.api_bulk_v2.meta/api_bulk_v2/bulk_api_2_limits.htm
import { describe, expect, it } from 'vitest';
import { toCsv } from '../../src/salesforce/bulk/csv.js';
import { type IngestRow, jobsOf } from '../../src/salesforce/bulk/ingest.js';

const csvBytes = (rows: readonly IngestRow[]) =>
  Buffer.byteLength(
    toCsv(
      ['Name'],
      rows.map((r) => r.fields),
    ),
  );

describe('cutting an insert into jobs under the upload limit', () => {
  it('counts the CSV in UTF-8 bytes, so rows of multi-byte text make more, smaller jobs', () => {
    // 40 characters, 120 bytes in UTF-8 (and 40 UTF-16 code units) a name.
    const rows = Array.from(
      { length: 20 },
      (_, i): IngestRow => ({ key: `k${i}`, fields: { Name: `${'日本語'.repeat(13)}${i % 10}` } }),
    );
    const limit = 1_000;
    const jobs = jobsOf('insert', rows, limit);
    expect(jobs.flat()).toEqual(rows);
    for (const job of jobs) expect(csvBytes(job)).toBeLessThanOrEqual(limit);
    expect(jobs.length).toBeGreaterThan(2);
  });
});
