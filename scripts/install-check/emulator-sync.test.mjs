// Copied into a scratch project that installed the packed crm-sync, lookup-core and
// salesforce-emulator (and vitest): an integrator's own test of a sync, against the emulator
// started through its API, asserting on the records the org then holds.
import { fileURLToPath } from 'node:url';
import { planSync } from '@service/crm-sync';
import { applyPlan, connectFromEnv, readCrm, setUpFields } from '@service/crm-sync/salesforce';
import { openEmbeddedStore } from '@service/lookup-core';
import { readNdjson } from '@service/lookup-core/node';
import { seedFromFile, startEmulator } from '@service/salesforce-emulator';
import { afterAll, beforeAll, expect, it } from 'vitest';

let emulator;
beforeAll(async () => {
  emulator = await startEmulator();
  seedFromFile(emulator.org, {
    records: { Account: [{ Name: 'Acme Corp', Website: 'https://www.acme.com' }] },
  });
});
afterAll(() => emulator.close());

it('writes the Service fields of the sample events onto the Acme Account', async () => {
  const { instanceUrl, accessToken } = emulator.issueTokens();
  const connection = connectFromEnv({ SF_INSTANCE_URL: instanceUrl, SF_ACCESS_TOKEN: accessToken });
  await setUpFields(connection);
  const samples = new URL(
    'samples/events.ndjson',
    import.meta.resolve('@service/lookup-core/package.json'),
  );
  const store = await openEmbeddedStore();
  await store.ingest(readNdjson(fileURLToPath(samples)));
  const plan = await planSync({
    crm: await readCrm(connection),
    observed: store.readAggregates({ workspace: 'default' }),
  });
  await store.close();
  const result = await applyPlan(connection, plan);
  expect(result.stopped).toBeUndefined();
  expect(result.counts.failed).toBe(0);
  expect(result.counts.written).toBeGreaterThan(0);
  const [acme] = [...emulator.org.table('Account').values()];
  expect(acme.ServiceSessions__c).toBeGreaterThan(0);
  expect(acme.ServicePurchaseIntent__c).toBe('Very High');
}, 60_000); // field setup, a read and the writes: a guard against a hang on a busy machine
