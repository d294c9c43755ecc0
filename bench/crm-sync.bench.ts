// CRM sync against the Salesforce emulator on loopback: API calls and wall time for field setup
// (floor: one upsert call per 10 catalogue fields + 1 profile update) and for syncing 10,000
// records (floor: one composite call per 200). Prints figures measured in this run.
import { performance } from 'node:perf_hooks';
import {
  COMPOSITE_BATCH_LIMIT,
  customFields,
  METADATA_BATCH_LIMIT,
  type ObservedCompany,
  planSync,
} from '@service/crm-sync';
import { applyPlan, connect, readCrm, setUpFields } from '@service/crm-sync/salesforce';
import { openEmbeddedStore } from '@service/lookup-core';
import { seedOrg } from '../packages/crm-sync/test/emulator/seed.ts';
import { startEmulator } from '../packages/crm-sync/test/emulator/server.ts';
import { sessionEvents } from '../packages/crm-sync/test/salesforce/events.ts';

const COMPANIES = 5_000; // one Account and one Contact each: 10,000 records
const FIELD_FLOOR = {
  upsertMetadata: Math.ceil(customFields.length / METADATA_BATCH_LIMIT),
  updateMetadata: 1,
};
const COMPOSITE_FLOOR = Math.ceil((2 * COMPANIES) / COMPOSITE_BATCH_LIMIT);

const ms = (start: number) => `${(performance.now() - start).toFixed(0)} ms`;

const emulator = await startEmulator({ validateSchema: false });
try {
  seedOrg(emulator.org, { companies: COMPANIES });
  const tokens = emulator.issueTokens();
  const connection = connect({
    ...tokens,
    clientId: emulator.clientId,
    loginUrl: emulator.url,
  });

  let start = performance.now();
  const fields = await setUpFields(connection);
  const fieldTime = ms(start);
  console.log(
    `field setup: ${fields.fields.length} fields, ${fields.calls.upsertMetadata} upsert calls (floor ${FIELD_FLOOR.upsertMetadata}), ${fields.calls.updateMetadata} profile update (floor ${FIELD_FLOOR.updateMetadata}), ${connection.totalCalls} API calls in all, ${fieldTime}`,
  );
  const callsBefore = connection.totalCalls;
  start = performance.now();
  const again = await setUpFields(connection);
  console.log(
    `field setup again: unchanged=${again.unchanged}, ${again.calls.upsertMetadata + again.calls.updateMetadata} Metadata calls, ${connection.totalCalls - callsBefore} API calls (reads), ${ms(start)}`,
  );

  start = performance.now();
  const store = await openEmbeddedStore();
  const observed: ObservedCompany[] = [];
  await store.ingest(sessionEvents({ companies: COMPANIES }));
  for await (const company of store.readAggregates()) observed.push(company as ObservedCompany);
  await store.close();
  console.log(
    `events: ${COMPANIES} sessions ingested and aggregated (lookup-core, embedded) in ${ms(start)}`,
  );

  const syncStart = performance.now();
  const beforeSync = { ...connection.stats.calls };
  start = performance.now();
  const crm = await readCrm(connection);
  const readTime = ms(start);
  start = performance.now();
  const plan = planSync({ crm, observed });
  const planTime = ms(start);
  start = performance.now();
  const result = await applyPlan(connection, plan);
  const applyTime = ms(start);
  const delta = (name: string) => (connection.stats.calls[name] ?? 0) - (beforeSync[name] ?? 0);
  const composite = delta('composite');
  const total = Object.keys(connection.stats.calls).reduce((sum, name) => sum + delta(name), 0);
  console.log(
    `sync: ${plan.summary.updates} records updated (${result.counts.written} written, ${result.counts.failed} failed), ${composite} composite calls (floor ${COMPOSITE_FLOOR}, ratio ${(composite / COMPOSITE_FLOOR).toFixed(2)}), ${total} API calls in all (${delta('query')} query pages, ${delta('describe')} describes, ${delta('limits')} limits)`,
  );
  console.log(
    `sync wall time: ${ms(syncStart)} (read ${readTime}, plan ${planTime}, apply ${applyTime}); ${((2 * COMPANIES) / ((performance.now() - syncStart) / 1000)).toFixed(0)} records/s`,
  );
  if (composite < COMPOSITE_FLOOR || fields.calls.upsertMetadata < FIELD_FLOOR.upsertMetadata) {
    throw new Error('fewer calls than the floor: the figures are wrong');
  }
} finally {
  await emulator.close();
}
