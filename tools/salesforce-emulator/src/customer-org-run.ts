// Issue 37's "Done when" run: an emulated org with the `customer` preset's behaviours (all of
// them, through `presetOptions`), seeded as a customer's org (customer-org.ts), and the sync
// command run on it as an integrator runs it: `fields apply`, then the same `sync --json` twice.
// The figures come from the org (records it holds, requests it received) and from the command's
// JSON report (outcomes and their status codes); the caller runs the command (a built file).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { CUSTOMER_SYNC_CONFIG, type CustomerOrg, customerOrg } from './customer-org.ts';
import { createdDuplicates, websiteHost } from './customer-org-duplicates.ts';
import { presetOptions } from './presets.ts';
import { toNdjson } from './seed-events.ts';
import { type Emulator, type EmulatorOptions, startEmulator } from './server.ts';

/** What a command run printed, and its exit code. */
export interface CommandRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the sync command with `args`, its home (SERVICE_CRM_HOME and working directory) `home`. */
export type RunCommand = (args: readonly string[], home: string) => Promise<CommandRun>;

/** One `sync` of the run. */
export interface SyncFigures {
  readonly code: number | null;
  /** What the command printed on stderr, and on stdout when it printed no report. */
  readonly output: string;
  readonly seconds: number;
  /** Requests the org received during the sync. */
  readonly calls: number;
  /** The report's counts: written, already-done, skipped, failed, pending... */
  readonly counts: Readonly<Record<string, number>>;
  /** Failed steps per Salesforce status code. */
  readonly failuresByStatus: Readonly<Record<string, number>>;
  /** Creates the org refused as duplicates (DUPLICATES_DETECTED), however the report files them. */
  readonly refusedAsDuplicates: number;
  /** Failed steps that a value too long or an address cost: `step: code`. */
  readonly lostToAddressOrLength: readonly string[];
  /** Steps that failed in the sync before, sent again in this one and failing the same way. */
  readonly resentSameFailure: readonly string[];
}

/** The figures of a customer-org run: the fields set up, the two syncs, and the org after them. */
export interface CustomerOrgRun {
  readonly companies: number;
  readonly events: number;
  readonly fieldsApply: CommandRun;
  /** Companies and people whose record the org accepts (the scenario's `accepted`). */
  readonly accepted: number;
  /** Those the org's trigger or its email check may refuse: the most failures a sync may have. */
  readonly refusable: number;
  /** Those of them the org holds no record with the Service values for after the first sync. */
  readonly acceptedNotWritten: readonly string[];
  /** Companies and people a record already in the org matches by name: creates to be refused. */
  readonly duplicatesPlanted: number;
  /** Groups of records the standard duplicate rules match, one of them created by the sync. */
  readonly createdDuplicates: readonly string[];
  readonly syncs: readonly [SyncFigures, SyncFigures];
}

interface Outcome {
  readonly status: string;
  readonly errors?: readonly { statusCode: string; fields?: readonly string[] }[];
  readonly step: {
    readonly type: string;
    readonly object?: string;
    readonly id?: string;
    readonly duplicateCheck?: { readonly value: string };
  };
}

/** The record a write sent: `Object:id` for an update, `Object:domain|email` for a create. */
function sentKey(object: string, values: Record<string, unknown>): string {
  if (values.Id) return `${object}:${values.Id}`;
  if (object === 'Account') return `Account:${websiteHost(values.Website)}`;
  return `${object}:${String(values.Email ?? '').toLowerCase()}`;
}

/** The same key for a plan step (undefined for feed posts and skips). */
function stepKey(step: Outcome['step']): string | undefined {
  if (step.type === 'update') return `${step.object}:${step.id}`;
  if (step.type === 'create') return `${step.object}:${step.duplicateCheck?.value}`;
  return undefined;
}

/** The records the org received writes for in `requests` and in the Bulk API jobs not in `jobsBefore`. */
function sentKeys(emulator: Emulator, from: number, jobsBefore: ReadonlySet<string>): Set<string> {
  const keys = new Set<string>();
  for (const r of emulator.requests.slice(from)) {
    const single = /\/sobjects\/(\w+)(?:\/([^/]+))?\/?$/.exec(r.path);
    if (r.path.endsWith('/composite/sobjects') && r.method !== 'GET') {
      const { records = [] } = JSON.parse(r.body || '{}') as {
        records?: Record<string, unknown>[];
      };
      for (const record of records)
        keys.add(sentKey(String((record.attributes as { type?: string })?.type), record));
    } else if (single && r.method === 'POST' && !single[2]) {
      keys.add(sentKey(single[1] ?? '', JSON.parse(r.body || '{}')));
    } else if (single?.[2] && r.method === 'PATCH') {
      keys.add(`${single[1]}:${decodeURIComponent(single[2])}`);
    }
  }
  for (const job of emulator.bulk.jobs.values())
    if (job.kind === 'ingest' && !jobsBefore.has(job.id))
      for (const row of job.rows) keys.add(sentKey(job.object, row));
  return keys;
}

const ADDRESS_FIELD = /(Street|City|State|Country|PostalCode|StateCode|CountryCode)$/;
const lostTo = (e: { statusCode: string; fields?: readonly string[] }) =>
  e.statusCode === 'STRING_TOO_LONG' ||
  e.statusCode === 'FIELD_INTEGRITY_EXCEPTION' ||
  (e.fields ?? []).some((f) => ADDRESS_FIELD.test(f));

/** The figures of one sync's JSON report; `before`: the failures of the sync before it. */
function reportFigures(
  outcomes: readonly Outcome[],
  sent: Set<string>,
  before?: Map<string, string>,
) {
  const failuresByStatus: Record<string, number> = {};
  const lost: string[] = [];
  const resent: string[] = [];
  let refusedAsDuplicates = 0;
  for (const o of outcomes) {
    const duplicate =
      o.step.type === 'create' &&
      (o.status.includes('duplicate') || JSON.stringify(o).includes('DUPLICATES_DETECTED'));
    if (duplicate && o.status !== 'written') refusedAsDuplicates++;
    if (o.status !== 'failed') continue;
    const code = o.errors?.[0]?.statusCode ?? 'UNKNOWN';
    failuresByStatus[code] = (failuresByStatus[code] ?? 0) + 1;
    const key = stepKey(o.step) ?? o.step.type;
    const lostCode = o.errors?.find(lostTo)?.statusCode;
    if (lostCode) lost.push(`${key}: ${lostCode}`);
    if (before?.get(key) === code && sent.has(key)) resent.push(`${key}: ${code}`);
  }
  return {
    failuresByStatus,
    refusedAsDuplicates,
    lostToAddressOrLength: lost,
    resentSameFailure: resent,
  };
}

interface Report {
  readonly counts: Readonly<Record<string, number>>;
  readonly outcomes: readonly Outcome[];
}

/** The command's JSON report (its last line that is a JSON object); undefined when it printed none. */
function reportOf(stdout: string): Report | undefined {
  const line = stdout
    .trim()
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('{'));
  try {
    const report = JSON.parse(line ?? '') as Partial<Report>;
    return { counts: report.counts ?? {}, outcomes: report.outcomes ?? [] };
  } catch {
    return undefined;
  }
}

/** Accepted subjects the org holds no record with the Service values for: `Object key`. */
function notWritten(emulator: Emulator, scenario: CustomerOrg): string[] {
  const held = new Set<string>();
  for (const object of ['Account', 'Contact', 'Lead'])
    for (const r of emulator.org.table(object).values())
      if (r.ServiceSessions__c != null)
        held.add(
          `${object} ${object === 'Account' ? websiteHost(r.Website) : String(r.Email).toLowerCase()}`,
        );
  return scenario.subjects
    .filter((s) => s.fate === 'accepted')
    .map((s) => `${s.object} ${s.key}`)
    .filter((key) => !held.has(key));
}

interface Files {
  readonly home: string;
  readonly args: string[];
}

/** The run's home: the login's token file, the events and the settings file. */
async function writeFiles(emulator: Emulator, scenario: CustomerOrg): Promise<Files> {
  const home = await mkdtemp(join(tmpdir(), 'customer-org-'));
  // The token file `service-crm login` writes (mode 0600), for a session the org issued.
  const tokens = { ...emulator.issueTokens(), clientId: emulator.clientId, loginUrl: emulator.url };
  await writeFile(join(home, 'tokens.json'), JSON.stringify(tokens), { mode: 0o600 });
  await writeFile(join(home, 'events.ndjson'), toNdjson(scenario.events));
  await writeFile(join(home, 'config.json'), JSON.stringify(CUSTOMER_SYNC_CONFIG));
  const args = ['sync', '--events', 'events.ndjson', '--config', 'config.json'];
  return { home, args: [...args, '--journal', join(home, 'journal.json'), '--json'] };
}

async function sync(
  emulator: Emulator,
  files: Files,
  run: RunCommand,
  before?: Map<string, string>,
) {
  const from = emulator.requests.length;
  const jobsBefore = new Set(emulator.bulk.jobs.keys());
  const start = performance.now();
  const result = await run(files.args, files.home);
  const seconds = (performance.now() - start) / 1000;
  const report = reportOf(result.stdout);
  const { counts, outcomes } = report ?? { counts: {}, outcomes: [] };
  const figures: SyncFigures = {
    code: result.code,
    output: `${result.stderr}${report ? '' : result.stdout}`,
    seconds,
    calls: emulator.requests.length - from,
    counts,
    ...reportFigures(outcomes, sentKeys(emulator, from, jobsBefore), before),
  };
  const failed = new Map<string, string>();
  for (const o of outcomes)
    if (o.status === 'failed')
      failed.set(stepKey(o.step) ?? o.step.type, o.errors?.[0]?.statusCode ?? 'UNKNOWN');
  return { figures, failed };
}

/**
 * Seeds an org of the `customer` preset for `companies` companies and runs `fields apply` and
 * the same sync twice through `run`; the figures of both syncs. `emulator` adds options (a
 * behaviour switched off, a page size).
 */
export async function runCustomerOrg(options: {
  companies: number;
  run: RunCommand;
  emulator?: EmulatorOptions;
}): Promise<CustomerOrgRun> {
  const emulator = await startEmulator({
    ...presetOptions('customer'),
    validateSchema: false,
    apiMax: 10_000_000,
    ...options.emulator,
  });
  const scenario = customerOrg(emulator.org, { companies: options.companies });
  const files = await writeFiles(emulator, scenario);
  try {
    const fieldsApply = await options.run(['fields', 'apply'], files.home);
    const first = await sync(emulator, files, options.run);
    const acceptedNotWritten = notWritten(emulator, scenario);
    const second = await sync(emulator, files, options.run, first.failed);
    return {
      companies: options.companies,
      events: scenario.events.length,
      fieldsApply,
      accepted: scenario.subjects.filter((s) => s.fate === 'accepted').length,
      refusable: scenario.subjects.filter((s) => s.fate === 'trigger' || s.fate === 'invalid-email')
        .length,
      acceptedNotWritten,
      duplicatesPlanted: scenario.subjects.filter((s) => s.fate === 'duplicate').length,
      createdDuplicates: createdDuplicates(emulator.org, scenario.seeded),
      syncs: [first.figures, second.figures],
    };
  } finally {
    await emulator.close();
    await rm(files.home, { recursive: true, force: true });
  }
}
