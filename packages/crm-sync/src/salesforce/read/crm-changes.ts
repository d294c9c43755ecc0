/**
 * Read only what changed: the first read takes every record (Accounts with their Opportunity
 * facts in one subquery, Contacts, Leads); later reads take, per object, the records whose
 * `SystemModstamp` is after the snapshot's watermark (the start of the previous read, on the
 * org's clock) less an overlap, which covers changes committed late. The org's clock is read
 * from its answers' `Date` header, so a clock here ahead of or behind it misses nothing. They
 * go through queryAll, so records moved to the Recycle Bin come back and leave the snapshot.
 */

import type { CrmObject, QueryObject } from '../../model/objects.js';
import { instantOf } from '../../plan/stored-values.js';
import type {
  CrmAccount,
  CrmContact,
  CrmLead,
  CrmOpportunity,
  SyncPlan,
} from '../../plan/types.js';
import { buildQuery } from '../../rest/soql.js';
import type { SalesforceConnection } from '../connection/connection.js';
import {
  type CrmSnapshotFile,
  SNAPSHOT_FORMAT,
  SNAPSHOT_VERSION,
  type SnapshotObjectState,
} from '../state/crm-snapshot.js';
import {
  type CrmReadOptions,
  crmReadOptions,
  type ReadOptions,
  readAccountsWithStage,
  readRecords,
  selectedColumns,
  withOpportunities,
} from './reads.js';

/** Records changed within this many seconds before the watermark are read again (default). */
export const DEFAULT_OVERLAP_SECONDS = 300;
/**
 * Deleted records stay in the Recycle Bin 15 days (emptyRecycleBin() in the SOAP API guide):
 * a snapshot older than that could miss deletions, so it is read again in full.
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_emptyrecyclebin.htm
 */
export const RECYCLE_BIN_DAYS = 15;
const STAMP = 'SystemModstamp';

/** What `readCrmChanges` reads, and the snapshot of the previous run. */
export interface CrmChangesOptions extends CrmReadOptions {
  /** The snapshot of the previous run; none: read everything. */
  readonly previous?: CrmSnapshotFile | undefined;
  /** Read everything even with a usable snapshot (`--full-read`). */
  readonly fullRead?: boolean;
  /** Seconds before the watermark read again (changes committed late); default 300. */
  readonly overlapSeconds?: number;
  /** The clock, for the Recycle Bin's 15 days (default `Date.now`). */
  readonly now?: () => number;
}

/** How one object was read: in full or only its changes, and how many records came. */
export interface ObjectRead {
  /** `full`: every record; `changes`: those modified since the watermark. */
  readonly mode: 'full' | 'changes';
  /** Records received (deleted ones included). */
  readonly records: number;
  /** Records that left the snapshot (in the Recycle Bin). */
  readonly deleted: number;
}

/** The org's records after `readCrmChanges`: the new snapshot, and how each object was read. */
export interface CrmChanges {
  /** The org's records now: plan from it and keep it for the next run. */
  readonly snapshot: CrmSnapshotFile;
  readonly reads: Readonly<Record<QueryObject, ObjectRead>>;
  /** Columns left out because the connecting user cannot read them. */
  readonly dropped: Readonly<Record<QueryObject, readonly string[]>>;
}

type Row = Record<string, unknown> & { readonly Id: string };

/** The columns a read of `object` selects (compared with those a snapshot was read with). */
function columnsOf(object: QueryObject, options: ReadOptions): string[] {
  return buildQuery(object, { ...options, children: [], limit: 1 }).flatMap(selectedColumns);
}

/** Merges rows read into `before` by Id: a row in the Recycle Bin (`IsDeleted`) leaves, others replace. */
function merge<T extends { readonly Id: string }>(
  before: readonly T[],
  rows: readonly Row[],
): { records: T[]; deleted: number } {
  const recycled = new Set<string>();
  const fresh = new Map<string, T>();
  for (const { attributes: _attributes, IsDeleted, ...row } of rows) {
    if (IsDeleted === true) recycled.add(row.Id as string);
    else fresh.set(row.Id as string, row as unknown as T);
  }
  const kept = before.filter((r) => !recycled.has(r.Id) && !fresh.has(r.Id));
  const deleted = before.filter((r) => recycled.has(r.Id)).length;
  return { records: [...kept, ...fresh.values()], deleted };
}

interface ObjectResult {
  readonly rows: Row[];
  readonly dropped: readonly string[];
  readonly columns: string[];
  /** The state continued from; undefined for a full read. */
  readonly state: SnapshotObjectState | undefined;
  readonly types?: Readonly<Record<string, string>> | undefined;
  /** Accounts read in full: the records and their Opportunity facts. */
  readonly staged?: { accounts: CrmAccount[]; opportunities: CrmOpportunity[] };
}

/**
 * Reads the CRM, incrementally when `previous` is a snapshot of the same org read with the same
 * columns and younger than the Recycle Bin's 15 days, in full otherwise. An object read
 * incrementally whose records in the org are fewer than the snapshot now holds lost records
 * no read saw in the Recycle Bin (purged from it, or the bin emptied): it is read again in full.
 */
export async function readCrmChanges(
  connection: SalesforceConnection,
  options: CrmChangesOptions = {},
): Promise<CrmChanges> {
  const changes = await readOnce(connection, options, new Set());
  const purged = await objectsWithPurges(connection, changes);
  return purged.size === 0 ? changes : readOnce(connection, options, purged);
}

/**
 * How many records each object has in the org now, as the snapshot holds them: Opportunities
 * with an Account only (the stage facts), none in the Recycle Bin.
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_count.htm
 */
async function countOf(connection: SalesforceConnection, object: QueryObject): Promise<number> {
  const where = object === 'Opportunity' ? ' WHERE AccountId != null' : '';
  const soql = `SELECT COUNT() FROM ${object}${where}`;
  const { body } = await connection.rest<{ totalSize: number }>(
    'GET',
    `/query?q=${encodeURIComponent(soql)}`,
    { operation: 'query' },
  );
  return body.totalSize;
}

/**
 * The objects read incrementally of which the snapshot holds more records than the org has:
 * records left the org without passing through a read as deleted. The Recycle Bin holds up to
 * 5,000 records per license and removes the oldest when full (after two hours in it), and
 * emptyRecycleBin() clears it at once: queryAll then no longer returns them.
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_emptyrecyclebin.htm
 */
async function objectsWithPurges(
  connection: SalesforceConnection,
  changes: CrmChanges,
): Promise<Set<QueryObject>> {
  const { snapshot } = changes;
  const held: Record<QueryObject, number> = {
    Account: snapshot.accounts.length,
    Contact: snapshot.contacts.length,
    Lead: snapshot.leads.length,
    Opportunity: snapshot.opportunities.length,
  };
  const purged = new Set<QueryObject>();
  for (const object of Object.keys(held) as QueryObject[])
    if (
      changes.reads[object].mode === 'changes' &&
      (await countOf(connection, object)) < held[object]
    )
      purged.add(object);
  return purged;
}

/** What one read of the CRM goes by: the org, the clock, and where each object continues from. */
interface ReadPlan {
  readonly connection: SalesforceConnection;
  readonly now: () => number;
  /** Milliseconds before a watermark read again. */
  readonly overlap: number;
  /** The snapshot continued from, when it is of this org and a full read was not asked for. */
  readonly previous: CrmSnapshotFile | undefined;
  readonly optionsOf: (object: QueryObject) => ReadOptions;
  /** The state each object continues from; `undefined` reads it in full. */
  readonly states: Record<QueryObject, SnapshotObjectState | undefined>;
}

/** The plan of one read; the objects in `full` are read in full whatever `previous` holds. */
function readPlan(
  connection: SalesforceConnection,
  options: CrmChangesOptions,
  full: ReadonlySet<QueryObject>,
): ReadPlan {
  const now = options.now ?? Date.now;
  const overlap = (options.overlapSeconds ?? DEFAULT_OVERLAP_SECONDS) * 1000;
  const previous =
    options.previous?.instanceUrl === connection.instanceUrl && options.fullRead !== true
      ? options.previous
      : undefined;
  const optionsOf = (object: QueryObject): ReadOptions => {
    if (object === 'Opportunity') return { ...crmReadOptions(object, options), fields: [STAMP] };
    const base = crmReadOptions(object, options);
    return { ...base, fields: [...(base.fields ?? []), STAMP] };
  };
  /** The state to continue from, when `object` can be read incrementally. */
  const continuing = (object: QueryObject): SnapshotObjectState | undefined => {
    const state = previous?.objects[object];
    if (!state || full.has(object)) return undefined;
    const had = new Set(state.columns.map((c) => c.toLowerCase()));
    const same = columnsOf(object, optionsOf(object)).every((c) => had.has(c.toLowerCase()));
    const fresh = now() - instantOf(state.watermark) < RECYCLE_BIN_DAYS * 86_400_000;
    return same && fresh ? state : undefined;
  };
  // The Opportunity facts come with the Accounts: both are read in full, or both continue.
  const opportunityState = continuing('Account') && continuing('Opportunity');
  const states: Record<QueryObject, SnapshotObjectState | undefined> = {
    Account: opportunityState && continuing('Account'),
    Opportunity: opportunityState,
    Contact: continuing('Contact'),
    Lead: continuing('Lead'),
  };
  return { connection, now, overlap, previous, optionsOf, states };
}

/** Every Account with its stage facts (through jobs in a large org). */
async function readAllAccounts({ connection, optionsOf }: ReadPlan): Promise<ObjectResult> {
  const base = optionsOf('Account');
  const read = await readAccountsWithStage(connection, base);
  return {
    rows: read.accounts as unknown as Row[],
    dropped: read.dropped,
    types: read.types,
    state: undefined,
    columns: columnsOf('Account', base),
    staged: read,
  };
}

/** One object's records: its changes since its state's watermark, or all of them. */
async function readObject(
  { connection, optionsOf, states, overlap }: ReadPlan,
  object: QueryObject,
): Promise<ObjectResult> {
  const state = states[object];
  const base = optionsOf(object);
  const changes: ReadOptions = state
    ? {
        fields: [...(base.fields ?? []), 'IsDeleted'],
        where: [
          {
            field: STAMP,
            op: '>',
            value: { dateTime: new Date(instantOf(state.watermark) - overlap) },
          },
        ],
        includeDeleted: true,
        knownDropped: state.dropped,
        knownTypes: state.types,
        expected: state.writing,
      }
    : {};
  const { records, dropped, types } = await readRecords<Row>(connection, object, {
    ...base,
    ...changes,
  });
  return { rows: records, dropped, types, state, columns: columnsOf(object, base) };
}

/** The four objects as read, and when the read started. */
interface Reads {
  readonly started: number;
  readonly accounts: ObjectResult;
  readonly contacts: ObjectResult;
  readonly leads: ObjectResult;
  readonly changedOpportunities: ObjectResult | undefined;
}

async function readAll(plan: ReadPlan): Promise<Reads> {
  const { states, now } = plan;
  // Changes committed while the read runs have later stamps, or fall in the next overlap.
  const started = now();
  // Continuing, the Accounts' stage facts come from the changed Opportunities (a changed,
  // moved or deleted Opportunity has a new SystemModstamp), not from a subquery.
  const accounts = states.Account ? await readObject(plan, 'Account') : await readAllAccounts(plan);
  const contacts = await readObject(plan, 'Contact');
  const leads = await readObject(plan, 'Lead');
  // Changed Opportunities only when continuing: a full read has them all from the subquery.
  const changedOpportunities = states.Opportunity
    ? await readObject(plan, 'Opportunity')
    : undefined;
  return { started, accounts, contacts, leads, changedOpportunities };
}

/** The records read merged into those of the snapshot continued from. */
function mergeReads({ previous, states }: ReadPlan, reads: Reads) {
  const { accounts, contacts, leads, changedOpportunities } = reads;
  const staged = accounts.staged ?? withOpportunities(accounts.rows);
  const mergedAccounts = merge<CrmAccount>(
    accounts.state ? (previous?.accounts ?? []) : [],
    staged.accounts as unknown as Row[],
  );
  // The Opportunities read in full with their Accounts, or the kept ones with changes on top.
  const kept = states.Opportunity ? (previous?.opportunities ?? []) : [];
  const mergedOpportunities = merge<CrmOpportunity & { Id: string }>(
    [...kept, ...staged.opportunities].filter(
      (o): o is CrmOpportunity & { Id: string } => typeof o.Id === 'string',
    ),
    (changedOpportunities?.rows ?? []).map(
      ({ Id, AccountId, IsClosed, IsWon, IsDeleted, ...r }) => ({
        Id,
        AccountId,
        IsClosed,
        IsWon,
        IsDeleted,
        [STAMP]: r[STAMP],
      }),
    ),
  );
  const mergedContacts = merge<CrmContact>(
    contacts.state ? (previous?.contacts ?? []) : [],
    contacts.rows,
  );
  const mergedLeads = merge<CrmLead>(leads.state ? (previous?.leads ?? []) : [], leads.rows);

  return { staged, mergedAccounts, mergedOpportunities, mergedContacts, mergedLeads };
}

/** One read of the CRM; the objects in `full` are read in full whatever `previous` holds. */
async function readOnce(
  connection: SalesforceConnection,
  options: CrmChangesOptions,
  full: ReadonlySet<QueryObject>,
): Promise<CrmChanges> {
  const plan = readPlan(connection, options, full);
  const { now, optionsOf } = plan;
  const reads = await readAll(plan);
  const { started, accounts, contacts, leads, changedOpportunities } = reads;
  const { staged, mergedAccounts, mergedOpportunities, mergedContacts, mergedLeads } = mergeReads(
    plan,
    reads,
  );
  // The start of the read on the org's clock, as its answers tell it (their `Date` header).
  const readStart = new Date(started + (connection.clockOffset ?? 0)).toISOString();
  const stateOf = (result: ObjectResult): SnapshotObjectState => {
    const types = result.types ?? result.state?.types;
    return {
      columns: result.columns,
      dropped: result.state ? result.state.dropped : result.dropped,
      ...(types ? { types } : {}),
      watermark: readStart,
    };
  };
  const snapshot: CrmSnapshotFile = {
    format: SNAPSHOT_FORMAT,
    version: SNAPSHOT_VERSION,
    instanceUrl: connection.instanceUrl,
    savedAt: new Date(now()).toISOString(),
    objects: {
      Account: stateOf(accounts),
      Contact: stateOf(contacts),
      Lead: stateOf(leads),
      Opportunity: {
        columns: columnsOf('Opportunity', optionsOf('Opportunity')),
        dropped: changedOpportunities?.dropped ?? [],
        watermark: readStart,
      },
    },
    accounts: mergedAccounts.records,
    contacts: mergedContacts.records,
    leads: mergedLeads.records,
    // Only those of an Account count for a stage (and for the count of purges).
    opportunities: mergedOpportunities.records.filter((o) => o.AccountId != null),
  };
  const summary = (result: ObjectResult | undefined, deleted: number, rows = 0): ObjectRead => ({
    mode: result?.state ? 'changes' : 'full',
    records: result?.rows.length ?? rows,
    deleted,
  });
  return {
    snapshot,
    reads: {
      Account: summary(accounts, mergedAccounts.deleted),
      Contact: summary(contacts, mergedContacts.deleted),
      Lead: summary(leads, mergedLeads.deleted),
      Opportunity: summary(
        changedOpportunities,
        mergedOpportunities.deleted,
        staged.opportunities.length,
      ),
    },
    dropped: {
      Account: accounts.dropped,
      Contact: contacts.dropped,
      Lead: leads.dropped,
      Opportunity: changedOpportunities?.dropped ?? [],
    },
  };
}

/**
 * The records a plan updates that the snapshot does not hold (a Contact a converted Lead points
 * to, say), read by id and merged in: without them the plan cannot tell what they hold already.
 * Returns the completed snapshot, or undefined when nothing was missing.
 */
export async function readMissing(
  connection: SalesforceConnection,
  snapshot: CrmSnapshotFile,
  plan: SyncPlan,
  options: CrmReadOptions = {},
): Promise<CrmSnapshotFile | undefined> {
  const held = new Set(
    [...snapshot.accounts, ...snapshot.contacts, ...snapshot.leads].map((r) => r.Id),
  );
  const missing = new Map<CrmObject, string[]>();
  for (const step of plan.steps) {
    if (step.type !== 'update' || held.has(step.id)) continue;
    missing.set(step.object, [...(missing.get(step.object) ?? []), step.id]);
  }
  if (missing.size === 0) return undefined;
  const lists = { Account: 'accounts', Contact: 'contacts', Lead: 'leads' } as const;
  let completed = snapshot;
  for (const [object, ids] of missing) {
    const base = crmReadOptions(object, options);
    const { records } = await readRecords<Row>(connection, object, {
      ...base,
      fields: [...(base.fields ?? []), STAMP],
      where: [{ field: 'Id', in: ids }],
      knownDropped: snapshot.objects[object].dropped,
    });
    const list = lists[object];
    completed = {
      ...completed,
      [list]: merge(completed[list] as readonly Row[], records).records,
    };
  }
  return completed;
}
