// CRM sync in the org a customer really has (issue 37's "Done when"): the built `service-crm`
// (packages/crm-sync/dist/cli.js, from `pnpm build`) against the Salesforce emulator started with
// every behaviour of the `customer` preset (`presetOptions('customer')`: duplicate rules, State
// and Country picklists, field lengths, email checks, a throwing trigger, sharing... as far as the
// emulator has them). The org is seeded as a customer's (runCustomerOrg in
// @service/salesforce-emulator): Accounts, Contacts and Leads, some owned by another user, people
// the events duplicate by name and company rather than by email (creates the standard duplicate
// rules refuse), Accounts of a company's name on another website (no duplicate for them); the
// events, for CUSTOMER_ORG_COMPANIES companies (default 5,000) with one or two people each, carry
// countries as `GB` and as `United Kingdom`, US and Canadian states, names over 40 characters,
// emojis, a few malformed emails and a few records the org's trigger refuses (`[trigger-refuses]`).
// `fields apply`, then the same `sync --json` twice. Records written and duplicates are counted in
// the org; API calls are the requests the emulator recorded; refusals and failures come from the
// command's report. Exits non-zero when the org lacks a record it accepts, holds a duplicate the
// sync created, a record was lost to an address or a length, or the second sync sent again a step
// that failed the same way.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { presetOptions, runCustomerOrg, type SyncFigures } from '@service/salesforce-emulator';
import { runCli } from '@service/test-support';

const COMPANIES = Number(process.env.CUSTOMER_ORG_COMPANIES ?? 5_000);
const CLI = join(import.meta.dirname, '../packages/crm-sync/dist/cli.js');

if (!Number.isInteger(COMPANIES) || COMPANIES < 100) {
  console.error(`skipped: CUSTOMER_ORG_COMPANIES must be an integer of at least 100`);
  process.exit(1);
}
if (!existsSync(CLI)) {
  console.error(`skipped: ${CLI} is not built (run \`pnpm build\`, or \`pnpm bench\`)`);
  process.exit(1);
}

const behaviours = Object.entries(presetOptions('customer'))
  .filter(([, on]) => on === true)
  .map(([name]) => name);
console.log(`customer preset, behaviours on: ${behaviours.join(', ')}`);

const run = await runCustomerOrg({
  companies: COMPANIES,
  run: (args, home) => runCli(CLI, args, { cwd: home, env: { SERVICE_CRM_HOME: home } }),
});

const failures: string[] = [];
function check(holds: boolean, what: string) {
  if (!holds) failures.push(what);
}

const listed = (items: readonly string[]) =>
  items.length === 0 ? '' : ` (${items.slice(0, 3).join('; ')}${items.length > 3 ? '; ...' : ''})`;

function printSync(label: string, sync: SyncFigures) {
  const { counts } = sync;
  const byStatus = Object.entries(sync.failuresByStatus)
    .map(([code, n]) => `${code} ${n}`)
    .join(', ');
  console.log(
    `${label}: exit ${sync.code}, ${sync.seconds.toFixed(1)} s, ${sync.calls} API calls; report: ${counts.written ?? 0} written, ${counts['already-done'] ?? 0} already done, ${counts.skipped ?? 0} skipped, ${counts.failed ?? 0} failed`,
  );
  console.log(`  creates refused as duplicates: ${sync.refusedAsDuplicates}`);
  console.log(`  failures by status code: ${byStatus || 'none'}`);
  console.log(
    `  records lost to an address or a length: ${sync.lostToAddressOrLength.length} (must be 0)${listed(sync.lostToAddressOrLength)}`,
  );
  check(
    sync.code === 0 || sync.code === 4,
    `${label} exited ${sync.code}: ${sync.output.slice(0, 300)}`,
  );
  check(
    sync.lostToAddressOrLength.length === 0,
    `${label}: records lost to an address or a length`,
  );
}

console.log(`${COMPANIES} companies, ${run.events} events`);
check(
  run.fieldsApply.code === 0,
  `fields apply exited ${run.fieldsApply.code}: ${run.fieldsApply.stderr.slice(0, 300)}`,
);
const [first, second] = run.syncs;
printSync('first sync', first);
const written = run.accepted - run.acceptedNotWritten.length;
console.log(
  `  records the org accepts: ${run.accepted}, written: ${written} (must be all)${listed(run.acceptedNotWritten)}`,
);
check(
  run.acceptedNotWritten.length === 0,
  `${run.acceptedNotWritten.length} records the org accepts not written`,
);
printSync('second sync', second);
console.log(
  `  steps that failed the same way in the first sync, sent again: ${second.resentSameFailure.length} (must be 0)${listed(second.resentSameFailure)}`,
);
check(
  second.resentSameFailure.length === 0,
  'the second sync sent again steps that failed the same way',
);
console.log(
  `duplicates the sync created (records the standard matching rules match): ${run.createdDuplicates.length} groups, of ${run.duplicatesPlanted} look-alikes in the org (must be 0)${listed(run.createdDuplicates)}`,
);
check(
  run.createdDuplicates.length === 0,
  `the org holds ${run.createdDuplicates.length} groups of duplicates the sync created`,
);

if (failures.length > 0) {
  console.error(`FAILED:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
