// CRM sync as users run it: the built `service-crm` command (packages/crm-sync/dist/cli.js, from
// `pnpm build`), `fields apply` then `sync --events FILE` with its file journal, against
// the Salesforce emulator on loopback. Every figure comes from this run: API calls are the
// requests the emulator recorded, records are counted in the org it keeps, the command's own
// report is checked against them (written = N exactly, failed = 0), and each figure is printed
// beside the floor it is compared with. A part that could not run, a check that does not hold
// or a missed target exits non-zero.
//
// Part 1, for each size in CRM_BENCH_RECORDS (default 10,000 and 100,000 records: half Accounts,
// half Contacts, each observed once): a first sync through composite calls only, a first sync
// with Bulk API 2.0, an unchanged re-sync, and a re-sync after 1% of the companies changed.
// Part 2, for each size in CRM_BENCH_COMPANIES (default 10,000 and 100,000 companies): the whole
// `sync --events` path end to end, whose time must grow at most 1.2 times as fast as the size.
// Use a few hundred records while developing (CRM_BENCH_RECORDS=400,4000). CRM_BENCH_PARTS picks
// parts (default composite,bulk,events: the composite-only first sync, the bulk first sync with its
// re-syncs, and part 2). CRM_BENCH_KEEPALIVE_MS sets how long the emulator keeps an idle
// connection open (Node's default 5,000 ms): a server closing it as the client, busy with a large
// page, sends on it is what failed the 100,000-company run with "fetch failed".
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { customFields } from '@service/crm-sync';
import {
  type Emulator,
  type RecordedRequest,
  seedOrg,
  sessionEvents,
  startEmulator,
  toNdjson,
} from '@service/salesforce-emulator';
import { runCli } from '@service/test-support';

const sizes = (name: string, fallback: string) =>
  (process.env[name] ?? fallback).split(',').map((s) => Number(s.trim()));
const RECORD_SIZES = sizes('CRM_BENCH_RECORDS', '10000,100000');
const COMPANY_SIZES = sizes('CRM_BENCH_COMPANIES', '10000,100000');
const PARTS = new Set((process.env.CRM_BENCH_PARTS ?? 'composite,bulk,events').split(','));
const CLI = join(import.meta.dirname, '../packages/crm-sync/dist/cli.js');
/** Issue 16's targets. */
const TARGET = { unchangedCalls: 10, bulkFirstSyncCalls: 30, bulkAtRecords: 100_000, growth: 1.2 };

const failures: string[] = [];
function check(holds: boolean, what: string) {
  if (!holds) failures.push(what);
}

const unknownParts = [...PARTS].filter((p) => !['composite', 'bulk', 'events'].includes(p));
if (unknownParts.length > 0) {
  console.error(`skipped: CRM_BENCH_PARTS lists composite, bulk or events, not ${unknownParts}`);
  process.exit(1);
}
for (const [name, list] of [
  ['CRM_BENCH_RECORDS', RECORD_SIZES],
  ['CRM_BENCH_COMPANIES', COMPANY_SIZES],
] as const) {
  if (list.some((n) => !Number.isInteger(n) || n < 2)) {
    console.error(`skipped: ${name} must list integers of at least 2, got ${list.join(',')}`);
    process.exit(1);
  }
}
if (!existsSync(CLI)) {
  console.error(`skipped: ${CLI} is not built (run \`pnpm build\`, or \`pnpm bench\`)`);
  process.exit(1);
}

/** Runs the command with its own home (token file, journal); its report and wall time. */
async function serviceCrm(home: string, args: string[]) {
  const start = performance.now();
  const run = await runCli(CLI, args, { cwd: home, env: { SERVICE_CRM_HOME: home } });
  return { ...run, seconds: (performance.now() - start) / 1000 };
}

interface Org {
  readonly emulator: Emulator;
  readonly home: string;
  readonly records: readonly string[];
  readonly companies: number;
}

/** A fresh org with `companies` Accounts and Contacts, its fields set up by `fields apply`. */
async function freshOrg(companies: number, label: string): Promise<Org> {
  const emulator = await startEmulator({
    validateSchema: false,
    apiMax: 10_000_000,
    ...(process.env.CRM_BENCH_KEEPALIVE_MS
      ? { keepAliveTimeoutMs: Number(process.env.CRM_BENCH_KEEPALIVE_MS) }
      : {}),
  });
  const home = await mkdtemp(join(tmpdir(), 'crm-sync-bench-'));
  const { accounts, contacts } = seedOrg(emulator.org, { companies });
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
  const from = emulator.requests.length;
  const fields = await serviceCrm(home, ['fields', 'apply']);
  check(fields.code === 0, `${label}: fields apply exited ${fields.code}: ${fields.stderr.trim()}`);
  const soap = emulator.requests.slice(from).filter((r) => r.soap !== undefined);
  const upserts = soap.filter((r) => r.soap?.operation === 'upsertMetadata');
  const upserted = upserts.reduce((sum, r) => sum + (r.soap?.components ?? 0), 0);
  check(
    upserted === customFields.length,
    `${label}: upserted ${upserted} fields, not ${customFields.length}`,
  );
  if (label === 'first') {
    const floor = Math.ceil(customFields.length / 10);
    console.log(
      `fields apply: ${upserted} fields in ${upserts.length} upsertMetadata calls (floor ${floor}), ${soap.length - upserts.length} other Metadata calls, ${emulator.requests.length - from} API calls in all, ${fields.seconds.toFixed(1)} s`,
    );
  }
  return { emulator, home, records: [...accounts, ...contacts], companies };
}

async function closeOrg(org: Org) {
  await org.emulator.close();
  await rm(org.home, { recursive: true, force: true });
}

/** What one `sync` did, as the org recorded it. */
interface SyncFigures {
  readonly seconds: number;
  readonly calls: number;
  readonly composite: number;
  readonly jobs: number;
  /** Calls that write: composite, record creates, feed posts, and every call of an ingest job. */
  readonly writeCalls: number;
  /** Records the org saw written: in answered composite calls and processed job rows. */
  readonly written: Set<string>;
  /** What the command's summary line reported. */
  readonly report: { counts: { written: number; failed: number } };
}

async function sync(org: Org, events: string, config: object, label: string): Promise<SyncFigures> {
  const { emulator, home } = org;
  const file = join(home, 'config.json');
  await writeFile(file, JSON.stringify(config));
  const journal = join(home, 'sync-journal.json');
  const from = emulator.requests.length;
  const jobsBefore = new Set(emulator.bulk.jobs.keys());
  // The text report: at 100,000 companies `--json` would print every step's outcome.
  const args = ['sync', '--events', events, '--config', file, '--journal', journal];
  const run = await serviceCrm(home, args);
  check(run.code === 0, `${label}: sync exited ${run.code}: ${run.stderr.trim().slice(0, 300)}`);
  const during: RecordedRequest[] = emulator.requests.slice(from);
  const composite = during.filter(
    (r) => r.method === 'PATCH' && r.path.endsWith('/composite/sobjects'),
  );
  const written = new Set<string>(
    composite
      .filter((r) => r.status === 200)
      .flatMap((r) => (JSON.parse(r.body).records as { id: string }[]).map((x) => x.id)),
  );
  const jobs = [...emulator.bulk.jobs.values()].filter((j) => !jobsBefore.has(j.id));
  for (const job of jobs)
    for (const [i, row] of job.rows.entries()) if (job.results[i] && row.Id) written.add(row.Id);
  const summary = /(\d+) written, .* (\d+) failed, /.exec(run.stdout);
  check(summary !== null, `${label}: sync printed no summary: ${run.stdout.slice(-200)}`);
  const report = { counts: { written: Number(summary?.[1]), failed: Number(summary?.[2]) } };
  check(report.counts.failed === 0, `${label}: failed = ${report.counts.failed}, not 0`);
  const left = existsSync(journal) ? (await readFile(journal, 'utf8')).trim() : '{}';
  check(
    left === '{}',
    `${label}: the journal of a finished sync holds ${left.slice(0, 80)}, not {}`,
  );
  return {
    seconds: run.seconds,
    calls: during.length,
    composite: composite.length,
    jobs: jobs.filter((j) => j.kind === 'ingest').length,
    writeCalls: during.filter(
      (r) =>
        (r.method === 'PATCH' && r.path.endsWith('/composite/sobjects')) ||
        (r.method === 'POST' && /\/sobjects\/\w+\/?$|\/chatter\//.test(r.path)) ||
        r.path.includes('/jobs/ingest'),
    ).length,
    written,
    report,
  };
}

/** Every seeded record holds the Service values: what a first sync must leave. */
function checkFirstSync(org: Org, figures: SyncFigures, label: string) {
  const n = org.records.length;
  const stored = org.records.filter(
    (id) =>
      (org.emulator.org.table('Account').get(id) ?? org.emulator.org.table('Contact').get(id))
        ?.ServiceSessions__c != null,
  ).length;
  check(
    figures.written.size === n,
    `${label}: the org saw ${figures.written.size} records written, not ${n}`,
  );
  check(
    stored === n,
    `${label}: the org holds ${stored} records with the Service fields, not ${n}`,
  );
  check(
    figures.report.counts.written === n,
    `${label}: written = ${figures.report.counts.written}, not ${n}`,
  );
}

const line = (label: string, f: SyncFigures, floor: string) =>
  console.log(
    `  ${label}: ${f.calls} API calls (${f.writeCalls} writing: ${f.composite} composite, ${f.jobs} ingest jobs) vs ${floor}; ${f.written.size} records written; ${f.seconds.toFixed(1)} s`,
  );

async function eventsFile(org: Org, name: string, busy: number) {
  const path = join(org.home, name);
  await writeFile(path, toNdjson(sessionEvents({ companies: org.companies, busy })));
  return path;
}

/** A query per object read (Account, Contact, Lead, Opportunity): the least any sync reads. */
const READ_FLOOR = 4;
let first = true;

/** A first sync through composite calls only, on a fresh org of `companies`. */
async function compositeFirstSync(companies: number) {
  const n = 2 * companies;
  const floor = Math.ceil(n / 200);
  const plain = await freshOrg(companies, first ? 'first' : 'composite');
  first = false;
  try {
    const events = await eventsFile(plain, 'events.ndjson', 0);
    const f = await sync(plain, events, { bulk: false }, `${n} composite-only`);
    checkFirstSync(plain, f, `${n} composite-only`);
    line(
      'first sync, composite only',
      f,
      `floor ${floor} composite calls (ratio ${(f.composite / floor).toFixed(2)})`,
    );
  } finally {
    await closeOrg(plain);
  }
}

/** A first sync with Bulk API 2.0, then an unchanged re-sync and one after 1% changed. */
async function bulkSyncs(companies: number) {
  const n = 2 * companies;
  const floor = Math.ceil(n / 200);
  const org = await freshOrg(companies, first ? 'first' : 'bulk');
  first = false;
  try {
    const events = await eventsFile(org, 'events.ndjson', 0);
    const f = await sync(org, events, {}, `${n} with bulk`);
    checkFirstSync(org, f, `${n} with bulk`);
    line(
      'first sync with Bulk API 2.0',
      f,
      `composite floor ${floor} (ratio ${(f.calls / floor).toFixed(2)})${n >= TARGET.bulkAtRecords ? `, target at most ${TARGET.bulkFirstSyncCalls} API calls` : ''}`,
    );
    if (n >= TARGET.bulkAtRecords) {
      check(
        f.calls <= TARGET.bulkFirstSyncCalls,
        `${n} with bulk: ${f.calls} API calls, target at most ${TARGET.bulkFirstSyncCalls}`,
      );
    }

    const unchanged = await sync(org, events, {}, `${n} unchanged re-sync`);
    line(
      'unchanged re-sync',
      unchanged,
      `floor 0 writes and ${READ_FLOOR} reads, target 0 writes and at most ${TARGET.unchangedCalls} API calls`,
    );
    check(
      unchanged.written.size === 0 && unchanged.writeCalls === 0,
      `${n} unchanged re-sync: ${unchanged.writeCalls} write calls (${unchanged.written.size} records written), target 0`,
    );
    check(
      unchanged.calls <= TARGET.unchangedCalls,
      `${n} unchanged re-sync: ${unchanged.calls} API calls, target at most ${TARGET.unchangedCalls}`,
    );

    const changedCompanies = Math.max(1, Math.ceil(companies / 100));
    const changedEvents = await eventsFile(org, 'events-1pct.ndjson', changedCompanies);
    const changed = await sync(org, changedEvents, {}, `${n} 1% changed re-sync`);
    const changedFloor = Math.ceil((2 * changedCompanies) / 200);
    check(
      changed.written.size === 2 * changedCompanies,
      `${n} 1% changed: ${changed.written.size} records written, not ${2 * changedCompanies}`,
    );
    line(
      `re-sync after 1% changed (${changedCompanies} companies)`,
      changed,
      `floor ${changedFloor} composite calls for ${2 * changedCompanies} records and ${READ_FLOOR} reads`,
    );
  } finally {
    await closeOrg(org);
  }
}

for (const records of PARTS.has('composite') || PARTS.has('bulk') ? RECORD_SIZES : []) {
  const companies = Math.floor(records / 2);
  const n = 2 * companies;
  console.log(
    `\n${n} records (${companies} Accounts and ${companies} Contacts), composite floor ceil(N/200) = ${Math.ceil(n / 200)}`,
  );
  if (PARTS.has('composite')) await compositeFirstSync(companies);
  if (PARTS.has('bulk')) await bulkSyncs(companies);
}

// Part 2: the whole `sync --events` path (events file, store, aggregates, reads, plan, writes).
const times: { companies: number; seconds: number }[] = [];
if (PARTS.has('events'))
  console.log('\nservice-crm sync --events end to end (Bulk API 2.0 on, defaults):');
for (const companies of PARTS.has('events') ? COMPANY_SIZES : []) {
  const org = await freshOrg(companies, 'end to end');
  try {
    const events = await eventsFile(org, 'events.ndjson', 0);
    const f = await sync(org, events, {}, `${companies} companies end to end`);
    checkFirstSync(org, f, `${companies} companies end to end`);
    times.push({ companies, seconds: f.seconds });
    console.log(
      `  ${companies} companies (${org.records.length} records): ${f.seconds.toFixed(1)} s, ${f.calls} API calls, ${(org.records.length / f.seconds).toFixed(0)} records/s`,
    );
  } finally {
    await closeOrg(org);
  }
}
const [small, large] = [times[0], times.at(-1)];
if (small && large && large.companies > small.companies) {
  const sizeRatio = large.companies / small.companies;
  const timeRatio = large.seconds / small.seconds;
  console.log(
    `  ${large.companies} vs ${small.companies} companies: ${timeRatio.toFixed(1)}x the time for ${sizeRatio.toFixed(0)}x the size (at most ${(TARGET.growth * sizeRatio).toFixed(0)}x)`,
  );
  check(
    timeRatio <= TARGET.growth * sizeRatio,
    `end to end: ${timeRatio.toFixed(1)}x the time for ${sizeRatio}x the companies`,
  );
}

if (failures.length > 0) {
  console.error(`FAILED:\n  ${failures.join('\n  ')}`);
  process.exit(1);
}
