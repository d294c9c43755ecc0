/**
 * Where `sync` gets the CRM from: the org read incrementally against the snapshot kept between
 * runs, or a snapshot file alone (offline dry run). Each function hands back a value; the
 * command decides what comes next. Also the `snapshot` command.
 */
import { dirname } from 'node:path';
import type { CrmSnapshot, SyncPlan } from '../plan/types.js';
import { updateFields } from '../plan/update-fields.js';
import type { SalesforceConnection } from '../salesforce/connection/connection.js';
import { type CrmChanges, readCrmChanges, readMissing } from '../salesforce/read/crm-changes.js';
import {
  type CrmSnapshotFile,
  defaultSnapshotPath,
  readPlanningSnapshot,
  readSnapshotFile,
  withWriting,
  writeSnapshotFile,
} from '../salesforce/state/crm-snapshot.js';
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

/** The org read against the snapshot kept between runs, or a snapshot file alone (offline). */
export type CrmSource = OrgSource | OfflineSource;

/** The org, read incrementally. */
export interface OrgSource {
  readonly crm: CrmSnapshotFile;
  /** How it was read. */
  readonly changes: CrmChanges;
  /** Where the snapshot is kept between runs (one file per org). */
  readonly kept: string;
}

/** A snapshot file given with `--snapshot`, kept by `sync` or written by hand. */
export interface OfflineSource {
  readonly crm: CrmSnapshot;
  readonly changes?: undefined;
  readonly kept?: undefined;
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
export async function readCrmSource(
  connection: SalesforceConnection | undefined,
  io: Io,
  options: CrmSourceOptions,
): Promise<CrmSource> {
  if (connection === undefined) {
    const path = options.snapshot ?? '';
    const crm = await readPlanningSnapshot(path);
    if (crm === undefined)
      throw new CliError(
        EXIT.usage,
        `No CRM snapshot at ${path}. Write one with \`service-crm snapshot --out ${path}\`.`,
      );
    return { crm };
  }
  return readOrgSource(connection, io, options);
}

/** The org read incrementally against the snapshot kept between runs. */
async function readOrgSource(
  connection: SalesforceConnection,
  io: Io,
  options: Omit<CrmSourceOptions, 'snapshot'>,
): Promise<OrgSource> {
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
  return { crm: changes.snapshot, changes, kept };
}

/**
 * The source with the records `plan` updates but the snapshot lacks read from the org, or
 * undefined when it lacks none (or is offline): the plan is then made again from it.
 */
export async function completedFor(
  connection: SalesforceConnection | undefined,
  source: CrmSource,
  plan: SyncPlan,
  config: SyncConfig,
): Promise<CrmSource | undefined> {
  if (connection === undefined || source.kept === undefined) return undefined;
  const crm = await readMissing(connection, source.crm, plan, readOptions(config));
  return crm === undefined ? undefined : { ...source, crm };
}

/**
 * Keeps the snapshot for the next run (a no-op offline), with what `plan` (if given) is about to
 * write: the next read expects those records back.
 */
export async function keepSnapshot(source: CrmSource, plan?: SyncPlan): Promise<void> {
  if (source.kept === undefined) return;
  await writeSnapshotFile(source.kept, plan ? withWriting(source.crm, plan) : source.crm);
}

/** `service-crm snapshot`: brings the kept snapshot up to date and writes a copy to `out`. */
export async function snapshotCommand(
  connection: SalesforceConnection,
  io: Io,
  options: Omit<CrmSourceOptions, 'snapshot'> & { readonly out: string; readonly json: boolean },
): Promise<ExitCode> {
  const source = await readOrgSource(connection, io, options);
  await keepSnapshot(source);
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
