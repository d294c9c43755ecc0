/**
 * The sync pipeline end to end: observed-activity events -> embedded store -> aggregates ->
 * `planSync` -> the plan as a table. Without credentials the CRM side is a snapshot file and the
 * plan is a dry run; with SF_INSTANCE_URL and SF_ACCESS_TOKEN the CRM is read from the org and the
 * plan is applied through `@service/crm-sync/salesforce` (only printed with --dry-run).
 *
 *   node src/main.ts [--events FILE.ndjson] [--workspace NAME] [--crm SNAPSHOT.json] [--dry-run]
 */
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import {
  type CrmSnapshot,
  type Motion,
  type ObservedCompany,
  type PlanStep,
  planSync,
} from '@service/crm-sync';
import { applyPlan, connectFromEnv, readCrm, SalesforceError } from '@service/crm-sync/salesforce';
import { openEmbeddedStore } from '@service/lookup-core';
import { readNdjson } from '@service/lookup-core/node';

const { values: flags } = parseArgs({
  options: {
    events: {
      type: 'string',
      default: fileURLToPath(new URL('../../../samples/events.ndjson', import.meta.url)),
    },
    workspace: { type: 'string', default: 'default' },
    crm: { type: 'string', default: fileURLToPath(new URL('../sample-crm.json', import.meta.url)) },
    'dry-run': { type: 'boolean', default: false },
  },
});

// A motion is data: here, every high-intent visitor the CRM does not know becomes a Lead, and
// gets a session timeline posted on their record.
const motions: Motion[] = [
  {
    name: 'High intent visitors',
    conditions: { purchaseIntent: ['high', 'very_high'] },
    actions: ['createLead', 'postTimeline'],
  },
];

// 1. Events into the store, which keeps the aggregates current on ingest.
const store = await openEmbeddedStore();
const ingest = await store.ingest(readNdjson(flags.events));
const observed: ObservedCompany[] = [];
for await (const company of store.readAggregates({ workspace: flags.workspace })) {
  observed.push(company);
}
await store.close();
console.log(
  `${ingest.ingested} events ingested (${ingest.rejected.length} rejected); workspace ` +
    `${flags.workspace}: ${observed.length} companies, ` +
    `${observed.reduce((n, c) => n + c.contacts.length, 0)} contacts`,
);

// 2. The CRM side: the org's records, or a snapshot file when there are no credentials.
// SF_INSTANCE_URL + SF_ACCESS_TOKEN (and SF_REFRESH_TOKEN, SF_CLIENT_ID to refresh by itself).
const connection = connectFromEnv();

try {
  const crm: CrmSnapshot = connection
    ? await readCrm(connection)
    : (JSON.parse(await readFile(flags.crm, 'utf8')) as CrmSnapshot);
  console.log(
    `CRM (${connection ? connection.instanceUrl : flags.crm}): ${crm.accounts.length} Accounts, ` +
      `${crm.contacts.length} Contacts, ${crm.leads.length} Leads`,
  );

  // 3. The plan: pure, deterministic, no delete step by construction.
  const plan = planSync({ crm, observed, motions });
  printPlan(plan.steps);
  const { summary } = plan;
  console.log(
    `${summary.updates} updates, ${summary.creates} creates, ${summary.feedPosts} feed posts, ` +
      `${summary.skips} skipped (${summary.ambiguous} ambiguous)`,
  );

  // 4. Apply it, or say why not.
  if (connection === undefined || flags['dry-run']) {
    console.log(
      connection
        ? 'Dry run: nothing was written.'
        : 'Dry run: set SF_INSTANCE_URL and SF_ACCESS_TOKEN to read an org and apply the plan.',
    );
  } else {
    const result = await applyPlan(connection, plan);
    for (const outcome of result.outcomes) {
      if (outcome.status === 'failed') {
        const errors = outcome.errors.map((e) => `${e.statusCode}: ${e.message}`).join('; ');
        console.log(`FAILED ${describeStep(outcome.step)[0]}: ${errors}`);
      }
    }
    console.log(
      `Applied: ${Object.entries(result.counts)
        .map(([status, n]) => `${n} ${status}`)
        .join(', ')}`,
    );
    if (result.stopped) console.log(`Stopped: ${result.stopped.message}`);
    if (result.counts.failed > 0 || result.stopped) process.exitCode = 3;
  }
} catch (error) {
  if (!(error instanceof SalesforceError)) throw error;
  console.error(`Salesforce: ${error.message}`);
  process.exitCode = 1;
}

/** What a step does to which record, in a few words, and why. */
function describeStep(step: PlanStep): [action: string, record: string, fields: string] {
  switch (step.type) {
    case 'update':
      return [`update ${step.object}`, step.id, String(Object.keys(step.fields).length)];
    case 'create':
      return [
        `create ${step.object}`,
        step.idempotencyKey,
        String(Object.keys(step.fields).length),
      ];
    case 'feedPost':
      return [
        `post on ${step.target.object}`,
        'id' in step.target ? step.target.id : step.target.idempotencyKey,
        '',
      ];
    case 'skip':
      return [
        `skip (${step.code})`,
        step.subject.kind === 'company' ? step.subject.domain : step.subject.email,
        '',
      ];
  }
}

function printPlan(steps: readonly PlanStep[]): void {
  const rows = [
    ['Step', 'Record', 'Fields', 'Why'],
    ...steps.map((step) => [...describeStep(step), step.reason]),
  ];
  const widths = [0, 1, 2].map((column) =>
    Math.max(...rows.map((row) => row[column]?.length ?? 0)),
  );
  for (const row of rows) {
    console.log(
      row.map((cell, column) => (column < 3 ? cell.padEnd(widths[column] ?? 0) : cell)).join('  '),
    );
  }
}
