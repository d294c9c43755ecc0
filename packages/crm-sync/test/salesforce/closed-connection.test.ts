// A server closes a kept-alive connection it finds idle; a request sent on it at that moment
// fails with "other side closed" before any answer. A client that was busy longer than the
// server's idle timeout (parsing a 50,000-row page of a query job, at 100,000 companies) sends
// its next request on such a connection: the 100,000-company bench failed with "fetch failed"
// on a Bulk API query result page. Reads are sent again; a create is not (it may have been done).

import { seedOrg } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import type { SyncPlan } from '../../src/index.js';
import { applyPlan, readRecords, SalesforceError, setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { sessionUpdates } from './plan-steps.js';

const env = useEmulator({ validateSchema: false, pageSize: 40 });
const bulk = { threshold: 100, pageSize: 50, polling: { initialDelayMs: 1, maxDelayMs: 2 } };

describe('a connection the server closes before answering', () => {
  it('is asked again for a query job result page, a job poll and a REST query page', async () => {
    const { emulator } = env;
    seedOrg(emulator.org, { companies: 120 });
    const connection = connectTo(emulator);
    const expected = await readRecords(connection, 'Account', { bulk: undefined });
    emulator.inject({ kind: 'closed-connection', method: 'GET', path: /\/results$/, after: 1 });
    emulator.inject({ kind: 'closed-connection', method: 'GET', path: /\/jobs\/query\/\w+$/ });
    const viaJob = await readRecords(connection, 'Account', { bulk });
    expect(viaJob.records.map((r) => r.Id).sort()).toEqual(
      expected.records.map((r) => r.Id).sort(),
    );
    emulator.inject({ kind: 'closed-connection', method: 'GET', path: /\/query\/[\w-]+$/ });
    const viaRest = await readRecords(connection, 'Account', {});
    expect(viaRest.records).toHaveLength(expected.records.length);
  });

  it('is asked again to create an ingest job and for its results, each record written once', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    await setUpFields(connection);
    const ids = [...emulator.org.table('Account').keys()];
    const steps = sessionUpdates(ids);
    const plan: SyncPlan = {
      steps,
      summary: { updates: steps.length, creates: 0, feedPosts: 0, skips: 0, ambiguous: 0 },
    };
    // One record refused, so the job's result files are read.
    const refused = ids[0] ?? '';
    emulator.org.recordErrors.set(refused, {
      statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
      message: 'Sessions must be positive',
    });
    emulator.inject({ kind: 'closed-connection', method: 'POST', path: /\/jobs\/ingest$/ });
    emulator.inject({ kind: 'closed-connection', method: 'GET', path: /\/successfulResults\/?$/ });
    const result = await applyPlan(connection, plan, {
      bulk: { writeThreshold: 100, polling: bulk.polling },
    });
    expect(result.counts).toMatchObject({ written: ids.length - 1, failed: 1 });
    const jobs = [...emulator.bulk.jobs.values()].filter((j) => j.kind === 'ingest');
    expect(jobs.map((j) => j.rows.length)).toEqual([ids.length]);
    expect(ids.map((id) => emulator.org.table('Account').get(id)?.ServiceSessions__c)).toEqual(
      ids.map((id, i) => (id === refused ? undefined : i + 1)),
    );
    emulator.org.recordErrors.clear();
  });

  it('fails a create, saying why, instead of sending it again', async () => {
    const { emulator } = env;
    const connection = connectTo(emulator);
    const before = emulator.org.table('Account').size;
    emulator.inject({ kind: 'closed-connection', method: 'POST', path: '/sobjects/Account' });
    const failed = await connection
      .rest('POST', '/sobjects/Account', { body: { Name: 'Once' } })
      .catch((error: unknown) => error);
    expect(failed).toBeInstanceOf(SalesforceError);
    expect((failed as SalesforceError).code).toBe('network');
    expect((failed as SalesforceError).message).toMatch(/fetch failed: other side closed/);
    expect(emulator.count('POST', '/sobjects/Account')).toBe(1);
    expect(emulator.org.table('Account').size).toBe(before);
  });
});
