// CRM sync as users run it: the built `service-crm` command (packages/crm-sync/dist/cli.js, from
// `pnpm build`), `fields apply` then `sync --events FILE --json` with its file journal, against
// the Salesforce emulator on loopback. Every figure comes from this run: records are counted in
// the request bodies the emulator recorded and in the org it keeps, the command's own report is
// checked against them (written = N exactly, failed = 0), and rates divide what was done by the
// time it took. A part that could not run, or a check that does not hold, exits non-zero.
//
// Size: CRM_BENCH_COMPANIES companies, one Account and one Contact each (default 5,000: 10,000
// records, a few minutes on 2 cores); use a few hundred while developing.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { customFields } from '@service/crm-sync';
import { seedOrg } from '../packages/crm-sync/test/emulator/seed.ts';
import { type RecordedRequest, startEmulator } from '../packages/crm-sync/test/emulator/server.ts';
import { sessionEvents, toNdjson } from '../packages/crm-sync/test/salesforce/events.ts';

const COMPANIES = Number(process.env.CRM_BENCH_COMPANIES ?? 5_000);
const RECORDS = 2 * COMPANIES; // the seeded Accounts and Contacts, each observed once
const CLI = join(import.meta.dirname, '../packages/crm-sync/dist/cli.js');

const failures: string[] = [];
function check(holds: boolean, what: string) {
  if (!holds) failures.push(what);
}

if (!Number.isInteger(COMPANIES) || COMPANIES < 1) {
  console.error(`skipped: CRM_BENCH_COMPANIES must be a positive integer, got ${COMPANIES}`);
  process.exit(1);
}
if (!existsSync(CLI)) {
  console.error(`skipped: ${CLI} is not built (run \`pnpm build\`, or \`pnpm bench\`)`);
  process.exit(1);
}

/** Runs the command with its own home (token file, journal); returns its output and wall time. */
function serviceCrm(home: string, args: string[]) {
  const start = performance.now();
  const child = spawn(process.execPath, [CLI, ...args], {
    env: { PATH: process.env.PATH, SERVICE_CRM_HOME: home },
    cwd: home,
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
  });
  child.stderr.on('data', (d) => {
    stderr += d;
  });
  return new Promise<{ code: number | null; stdout: string; stderr: string; seconds: number }>(
    (resolve) =>
      child.on('close', (code) =>
        resolve({ code, stdout, stderr, seconds: (performance.now() - start) / 1000 }),
      ),
  );
}

/** The calls the emulator answered since `from`, by kind, as it recorded them. */
function calls(requests: readonly RecordedRequest[]) {
  const by = (test: (r: RecordedRequest) => boolean) => requests.filter(test);
  return {
    all: requests.length,
    queries: by((r) => r.method === 'GET' && /\/query(\/|$)/.test(r.path)).length,
    composite: by((r) => r.method === 'PATCH' && r.path.endsWith('/composite/sobjects')),
    soap: by((r) => r.soap !== undefined),
  };
}

const emulator = await startEmulator({ validateSchema: false }); // speed of the sync, not of xmllint
const home = await mkdtemp(join(tmpdir(), 'crm-sync-bench-'));
try {
  const { accounts, contacts } = seedOrg(emulator.org, { companies: COMPANIES });
  // The token file `service-crm login` writes (mode 0600), for a session the org issued.
  await writeFile(
    join(home, 'tokens.json'),
    JSON.stringify({
      ...emulator.issueTokens(),
      clientId: emulator.clientId,
      loginUrl: emulator.url,
    }),
    { mode: 0o600 },
  );
  const events = join(home, 'events.ndjson');
  const observed = sessionEvents({ companies: COMPANIES });
  await writeFile(events, toNdjson(observed));

  // fields apply: one upsertMetadata per 10 fields, one Profile update.
  let from = emulator.requests.length;
  const fields = await serviceCrm(home, ['fields', 'apply']);
  check(fields.code === 0, `fields apply exited ${fields.code}: ${fields.stderr.trim()}`);
  const soap = calls(emulator.requests.slice(from)).soap;
  const upserts = soap.filter((r) => r.soap?.operation === 'upsertMetadata');
  const upserted = upserts.reduce((sum, r) => sum + (r.soap?.components ?? 0), 0);
  const fieldFloor = Math.ceil(customFields.length / 10);
  check(
    upserted === customFields.length,
    `upserted ${upserted} fields, not ${customFields.length}`,
  );
  console.log(
    `fields apply: ${upserted} fields in ${upserts.length} upsertMetadata calls (floor ${fieldFloor}, ratio ${(upserts.length / fieldFloor).toFixed(2)}), ${soap.length - upserts.length} other Metadata calls, ${emulator.requests.length - from} API calls in all, ${fields.seconds.toFixed(1)} s`,
  );

  // sync --dry-run: read the events and the org, plan; nothing written.
  from = emulator.requests.length;
  const dry = await serviceCrm(home, ['sync', '--events', events, '--dry-run', '--json']);
  check(dry.code === 0, `sync --dry-run exited ${dry.code}: ${dry.stderr.trim()}`);
  const dryWrites = emulator.requests.slice(from).filter((r) => r.method !== 'GET').length;
  check(dryWrites === 0, `the dry run sent ${dryWrites} writes`);
  console.log(
    `sync --dry-run (ingest ${observed.length} events, read the org, plan): ${dry.seconds.toFixed(1)} s, ${emulator.requests.length - from} API calls`,
  );

  // sync: the same, then the writes, remembered in the file journal.
  from = emulator.requests.length;
  const journal = join(home, 'sync-journal.json');
  const sync = await serviceCrm(home, ['sync', '--events', events, '--json', '--journal', journal]);
  check(sync.code === 0, `sync exited ${sync.code}: ${sync.stderr.trim()}`);
  const during = calls(emulator.requests.slice(from));
  const answered = during.composite.filter((r) => r.status === 200);
  const sent = new Set(
    answered.flatMap((r) => JSON.parse(r.body).records.map((x: { id: string }) => x.id)),
  );
  const stored = [...accounts, ...contacts].filter(
    (id) =>
      (emulator.org.table('Account').get(id) ?? emulator.org.table('Contact').get(id))
        ?.ServiceSessions__c != null,
  ).length;
  let report: { counts?: { written?: number; failed?: number } } = {};
  try {
    report = JSON.parse(sync.stdout);
  } catch {
    check(false, `sync --json printed no JSON: ${sync.stdout.slice(0, 200)}`);
  }
  check(
    sent.size === RECORDS,
    `composite calls carried ${sent.size} distinct records, not ${RECORDS}`,
  );
  check(
    stored === RECORDS,
    `the org holds ${stored} records with the Service fields, not ${RECORDS}`,
  );
  check(report.counts?.written === RECORDS, `written = ${report.counts?.written}, not ${RECORDS}`);
  check(report.counts?.failed === 0, `failed = ${report.counts?.failed}, not 0`);
  const left = existsSync(journal) ? (await readFile(journal, 'utf8')).trim() : 'no journal file';
  check(left === '{}', `the journal of a finished sync holds ${left.slice(0, 80)}, not {}`);
  const compositeFloor = Math.ceil(RECORDS / 200);
  console.log(
    `sync: ${stored} records written as the org recorded them (report: written ${report.counts?.written}, failed ${report.counts?.failed}), ${during.composite.length} composite calls (floor ${compositeFloor}, ratio ${(during.composite.length / compositeFloor).toFixed(2)}), ${during.queries} query pages, ${during.all} API calls in all`,
  );
  console.log(
    `sync wall time: ${sync.seconds.toFixed(1)} s for ${stored} records, ${(stored / sync.seconds).toFixed(0)} records/s end to end (the dry run, the same without the writes, took ${dry.seconds.toFixed(1)} s)`,
  );
} finally {
  await emulator.close();
  await rm(home, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`FAILED:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
