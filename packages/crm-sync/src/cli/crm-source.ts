/**
 * Where `sync` gets the CRM from and what it may spend: the org read incrementally against the
 * snapshot kept between runs, or a snapshot file alone (offline dry run); the API budget of
 * the writes beside the org's remaining daily limit. Also the `snapshot` command.
 */
import { dirname } from 'node:path';
import { type SyncPlan, updateFields } from '../index.js';
import {
  type Budget,
  checkBudget,
  estimateWriteCalls,
  type WriteEstimate,
} from '../salesforce/budget.js';
import type { BulkOptions } from '../salesforce/bulk-options.js';
import type { SalesforceConnection } from '../salesforce/connection.js';
import { type CrmChanges, readCrmChanges, readMissing } from '../salesforce/crm-changes.js';
import {
  type CrmSnapshotFile,
  defaultSnapshotPath,
  readSnapshotFile,
  withWriting,
  writeSnapshotFile,
} from '../salesforce/crm-snapshot.js';
import type { SyncConfig } from './config.js';
import { CliError, EXIT, type ExitCode, type Io } from './output.js';

export interface CrmSourceOptions {
  /** `--snapshot FILE`: plan from this file, without an org. */
  readonly snapshot?: string | undefined;
  /** `--full-read`: read every record, whatever the kept snapshot holds. */
  readonly fullRead?: boolean;
  /** The token file: the kept snapshot lives in its directory, one file per org. */
  readonly tokenFile: string;
  readonly config: SyncConfig;
}

export interface CrmSource {
  readonly crm: CrmSnapshotFile;
  /** How it was read; undefined offline. */
  readonly changes?: CrmChanges;
  /**
   * Plans with `make`; when the plan updates records the snapshot lacks, reads them and plans
   * again (online only).
   */
  readonly plan: (make: (crm: CrmSnapshotFile) => SyncPlan) => Promise<SyncPlan>;
  /**
   * Keeps the snapshot for the next run (a no-op offline), with what `plan` (if given) is about
   * to write: the next read expects those records back.
   */
  readonly keep: (plan?: SyncPlan) => Promise<void>;
}

function readOptions(config: SyncConfig) {
  return {
    ownerSync: config.ownerSync,
    unreadable: config.unreadable,
    fields: updateFields(config.settings.mappings),
    bulk: config.bulk,
  };
}

/** The CRM to plan from: the snapshot file offline, else the org read incrementally. */
export async function crmSource(
  connection: SalesforceConnection | undefined,
  io: Io,
  options: CrmSourceOptions,
): Promise<CrmSource> {
  if (connection === undefined) {
    const path = options.snapshot ?? '';
    const crm = await readSnapshotFile(path);
    if (crm === undefined)
      throw new CliError(
        EXIT.usage,
        `No CRM snapshot at ${path}. Write one with \`service-crm snapshot --out ${path}\`.`,
      );
    return { crm, plan: async (make) => make(crm), keep: async () => {} };
  }
  const kept = defaultSnapshotPath(dirname(options.tokenFile), connection.instanceUrl);
  const changes = await readCrmChanges(connection, {
    ...readOptions(options.config),
    previous: options.fullRead ? undefined : await readSnapshotFile(kept),
    fullRead: options.fullRead === true,
  });
  // The Service fields are read only to compare: one the user cannot read is written anyway.
  const compared = readOptions(options.config).fields as Readonly<
    Record<string, readonly string[]>
  >;
  for (const [object, dropped] of Object.entries(changes.dropped)) {
    const baseline = dropped.filter((column) => !compared[object]?.includes(column));
    if (baseline.length > 0)
      io.err(`${object}: not readable by the connected user, left out: ${baseline.join(', ')}`);
  }
  let crm = changes.snapshot;
  return {
    get crm() {
      return crm;
    },
    changes,
    plan: async (make) => {
      const first = make(crm);
      const completed = await readMissing(connection, crm, first, readOptions(options.config));
      if (completed === undefined) return first;
      crm = completed;
      return make(crm);
    },
    keep: (plan) => writeSnapshotFile(kept, plan ? withWriting(crm, plan) : crm),
  };
}

function estimateText(reads: number | undefined, e: WriteEstimate): string {
  const parts = [
    `${e.composite} composite`,
    ...(e.bulkJobs > 0 ? [`${e.bulkJobs} bulk jobs (${e.bulkCalls} calls at least)`] : []),
    `${e.creates} for creates`,
    `${e.feedPosts} feed posts`,
    `${e.limitCheck} limit check`,
  ];
  const read = reads === undefined ? 'reads: offline' : `reads made ${reads} calls`;
  return `API budget: ${read}; the writes would make ${e.total} (${parts.join(', ')})`;
}

/**
 * The budget of the writes, beside the remaining daily limit when an org is connected (`line`,
 * for a dry run to print); a real run whose estimate would cross the reserve is refused.
 */
export async function budgetFor(
  connection: SalesforceConnection | undefined,
  plan: SyncPlan,
  options: {
    readonly dryRun: boolean;
    readonly apiReserve?: number;
    readonly bulk?: BulkOptions | false;
    /** Lead assignment rules on create (default true): Lead creates then stay off jobs. */
    readonly autoAssign?: boolean;
  },
): Promise<{ estimate: WriteEstimate; budget?: Budget; line: string }> {
  const reads = connection?.totalCalls;
  const estimate = estimateWriteCalls(plan, {
    bulk: options.bulk ?? {},
    autoAssign: options.autoAssign !== false,
  });
  if (connection === undefined) {
    const line = `${estimateText(reads, estimate)}; the org's daily limit is not known offline.`;
    return { estimate, line };
  }
  if (estimate.total === 0 && !options.dryRun) return { estimate, line: '' };
  const budget = await checkBudget(connection, estimate, options.apiReserve);
  const left = budget.usage.max - budget.usage.used;
  const verdict = budget.fits
    ? `${budget.leftAfter} would be left`
    : `that would leave ${budget.leftAfter}, under the reserve`;
  const line = `${estimateText(reads, estimate)}; the org has ${left} of ${budget.usage.max} calls left today (reserve ${budget.reserve}): ${verdict}.`;
  if (!options.dryRun && !budget.fits) {
    throw new CliError(
      EXIT.apiLimit,
      `${line} Not started: run it when the org has more calls left (Salesforce frees them over a rolling 24 hours), or lower --api-reserve.`,
    );
  }
  return { estimate, budget, line };
}

/** `service-crm snapshot`: brings the kept snapshot up to date and writes a copy to `out`. */
export async function snapshotCommand(
  connection: SalesforceConnection,
  io: Io,
  options: Omit<CrmSourceOptions, 'snapshot'> & { readonly out: string; readonly json: boolean },
): Promise<ExitCode> {
  const source = await crmSource(connection, io, options);
  await source.keep();
  await writeSnapshotFile(options.out, source.crm);
  const { crm } = source;
  const counts = {
    accounts: crm.accounts.length,
    contacts: crm.contacts.length,
    leads: crm.leads.length,
    opportunities: crm.opportunities.length,
  };
  if (options.json)
    io.out(JSON.stringify({ out: options.out, ...counts, reads: source.changes?.reads }));
  else
    io.out(
      `Wrote ${options.out}: ${counts.accounts} Accounts, ${counts.contacts} Contacts, ${counts.leads} Leads, ${counts.opportunities} Opportunities (${connection.totalCalls} API calls). Plan from it offline: \`service-crm sync --dry-run --snapshot ${options.out} --events FILE\`.`,
    );
  return EXIT.ok;
}

export function parseReserve(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(EXIT.usage, `--api-reserve ${value} is not a number of calls`);
  return n;
}
