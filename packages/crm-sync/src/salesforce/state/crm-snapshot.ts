/**
 * The CRM snapshot file: the org's records as the sync needs them (ids, match keys, the Service
 * values they hold, the Opportunity facts of Pipeline Stage) and, per object, the watermark an
 * incremental read continues from. Written by `sync` between runs, by `service-crm snapshot`,
 * and read by `sync --dry-run --snapshot FILE` to plan offline, which also takes one written by
 * hand (records only). JSON, mode 0600; its JSON Schema is crm-snapshot.schema.json in the
 * package, described in docs/crm-sync/snapshot.md.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { QueryObject } from '../../model/objects.js';
import type {
  CrmAccount,
  CrmContact,
  CrmLead,
  CrmOpportunity,
  CrmSnapshot,
  SyncPlan,
} from '../../plan/types.js';
import { SalesforceError } from '../errors.js';
import { writePrivateFile } from './private-file.js';

/** The `format` of a snapshot file, by which a file is recognised as one. */
export const SNAPSHOT_FORMAT = 'service-crm-snapshot';
export const SNAPSHOT_VERSION = 1;

/** What the snapshot holds of one object. */
export interface SnapshotObjectState {
  /** The columns its records were read with (before unreadable ones were dropped). */
  readonly columns: readonly string[];
  /** Columns the connecting user could not read: left out of later reads without asking. */
  readonly dropped: readonly string[];
  /** The describe types of its fields, for a Bulk API job's CSV without asking describe again. */
  readonly types?: Readonly<Record<string, string>>;
  /**
   * When the object was last read (ISO 8601, the org's clock at the start of the read): the
   * next read asks for records whose `SystemModstamp` is after it, less the overlap.
   */
  readonly watermark: string;
  /**
   * Records the run that kept the snapshot went on to write (updates and creates): their
   * `SystemModstamp` moves past the watermark, so the next read counts at least this many and,
   * from the read threshold on, goes to a query job without a REST page first to count them.
   */
  readonly writing?: number;
}

/**
 * The org's records as a sync last read them, saved between runs so the next reads only what
 * changed.
 */
export interface CrmSnapshotFile extends CrmSnapshot {
  readonly format: typeof SNAPSHOT_FORMAT;
  readonly version: typeof SNAPSHOT_VERSION;
  /** The org the records come from: a snapshot of another org is never continued. */
  readonly instanceUrl: string;
  /** When the snapshot was last brought up to date. */
  readonly savedAt: string;
  readonly objects: Readonly<Record<QueryObject, SnapshotObjectState>>;
  readonly accounts: readonly CrmAccount[];
  readonly contacts: readonly CrmContact[];
  readonly leads: readonly CrmLead[];
  readonly opportunities: readonly CrmOpportunity[];
}

/** Where `sync` keeps the snapshot of the org at `instanceUrl`: one file per org, in `dir`. */
export function defaultSnapshotPath(dir: string, instanceUrl: string): string {
  const host = URL.canParse(instanceUrl) ? new URL(instanceUrl).host : instanceUrl;
  return join(dir, `crm-snapshot-${host.replace(/[^\w.-]/g, '_')}.json`);
}

function invalid(path: string, why: string): SalesforceError {
  return new SalesforceError(
    'invalid_options',
    `${path} is not a CRM snapshot (${why}). See docs/crm-sync/snapshot.md, or write one with \`service-crm snapshot --out ${path}\`.`,
  );
}

const OBJECTS: readonly QueryObject[] = ['Account', 'Contact', 'Lead', 'Opportunity'];
const LISTS = ['accounts', 'contacts', 'leads', 'opportunities'] as const;

/** Checks the format, the version and the record lists; throws a clear error otherwise. */
function checkedRecords(path: string, value: unknown): Partial<Record<string, unknown>> {
  if (typeof value !== 'object' || value === null) throw invalid(path, 'not a JSON object');
  const file = value as Partial<Record<string, unknown>>;
  if (file.format !== SNAPSHOT_FORMAT) throw invalid(path, `no "format": "${SNAPSHOT_FORMAT}"`);
  if (file.version !== SNAPSHOT_VERSION)
    throw invalid(path, `version ${String(file.version)}, this version reads ${SNAPSHOT_VERSION}`);
  for (const list of LISTS) {
    const records = file[list];
    if (records === undefined && list === 'opportunities') continue;
    if (!Array.isArray(records)) throw invalid(path, `"${list}" is not a list`);
    const bad = records.findIndex(
      (r) =>
        typeof r !== 'object' ||
        r === null ||
        (list !== 'opportunities' && typeof (r as { Id?: unknown }).Id !== 'string'),
    );
    if (bad >= 0) throw invalid(path, `${list}[${bad}] is not a record with an Id`);
  }
  return file;
}

/** Checks the shape a kept snapshot must have to be continued; throws a clear error otherwise. */
function checked(path: string, value: unknown): CrmSnapshotFile {
  const file = checkedRecords(path, value);
  if (typeof file.instanceUrl !== 'string') throw invalid(path, 'no instanceUrl');
  if (!Array.isArray(file.opportunities)) throw invalid(path, '"opportunities" is not a list');
  const objects = file.objects as Partial<Record<string, Partial<SnapshotObjectState>>> | undefined;
  for (const object of OBJECTS) {
    const state = objects?.[object];
    if (
      !Array.isArray(state?.columns) ||
      !Array.isArray(state?.dropped) ||
      typeof state?.watermark !== 'string'
    )
      throw invalid(path, `no state for ${object}`);
    if (state.writing !== undefined && !(Number.isInteger(state.writing) && state.writing >= 0))
      throw invalid(path, `${object}'s "writing" is not a count of records`);
  }
  return value as CrmSnapshotFile;
}

/** The kept snapshot at `path`, to continue reading from; `undefined` when there is no file. */
export async function readSnapshotFile(path: string): Promise<CrmSnapshotFile | undefined> {
  const parsed = await readJson(path);
  return parsed === undefined ? undefined : checked(path, parsed);
}

/**
 * The records of the snapshot at `path` to plan from, kept by `sync` or written by hand (only
 * `format`, `version` and the record lists); `undefined` when there is no file.
 */
export async function readPlanningSnapshot(path: string): Promise<CrmSnapshot | undefined> {
  const parsed = await readJson(path);
  if (parsed === undefined) return undefined;
  const file = checkedRecords(path, parsed) as unknown as CrmSnapshot;
  return {
    accounts: file.accounts,
    contacts: file.contacts,
    leads: file.leads,
    opportunities: file.opportunities ?? [],
  };
}

/** The JSON at `path`; `undefined` when there is no file. */
async function readJson(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new SalesforceError('invalid_options', `Cannot read the CRM snapshot ${path}: ${code}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalid(path, 'not JSON');
  }
  return parsed;
}

/** The snapshot with, per object, how many records `plan` writes (see `writing`). */
export function withWriting(snapshot: CrmSnapshotFile, plan: SyncPlan): CrmSnapshotFile {
  const writing = new Map<string, number>();
  for (const step of plan.steps)
    if (step.type === 'update' || step.type === 'create')
      writing.set(step.object, (writing.get(step.object) ?? 0) + 1);
  const objects = Object.fromEntries(
    OBJECTS.map((object) => {
      const { writing: _before, ...state } = snapshot.objects[object];
      const n = writing.get(object) ?? 0;
      return [object, n > 0 ? { ...state, writing: n } : state];
    }),
  ) as Record<QueryObject, SnapshotObjectState>;
  return { ...snapshot, objects };
}

/** Writes a snapshot to `path`, readable by its owner only (mode 0600). */
export async function writeSnapshotFile(path: string, snapshot: CrmSnapshotFile): Promise<void> {
  await writePrivateFile(path, JSON.stringify(snapshot));
}
