/**
 * Reads (spec section 2.6): the SOQL of the core's `buildQuery`, every page followed. Fields the
 * integration user cannot read are dropped instead of failing the sync: first those the
 * describe does not show, then, one at a time, any column an `INVALID_FIELD` answer still names
 * (Salesforce names only the first bad column, and a field hidden by field-level security looks
 * the same as one that does not exist).
 */
import {
  buildQuery,
  type CrmAccount,
  type CrmContact,
  type CrmLead,
  type CrmOpportunity,
  type CrmSnapshot,
  type QueryObject,
  type QueryOptions,
} from '../index.js';
import { type BulkOptions, DEFAULT_PAGE_SIZE, DEFAULT_READ_THRESHOLD } from './bulk-options.js';
import { type BulkReadOptions, readInBulk } from './bulk-query.js';
import type { SalesforceConnection } from './connection.js';
import { SalesforceError } from './errors.js';

export interface QueryPage<T> {
  readonly totalSize: number;
  readonly done: boolean;
  readonly nextRecordsUrl?: string;
  readonly records: T[];
}

/**
 * Runs one SOQL query and follows `nextRecordsUrl` to the last page; with `bulk`, a query
 * whose first page counts at least `bulk.threshold` records is read by a Bulk API 2.0 job.
 */
export async function queryAll<T = Record<string, unknown>>(
  connection: SalesforceConnection,
  soql: string,
  options: { readonly tooling?: boolean; readonly bulk?: BulkReadOptions | undefined } = {},
): Promise<T[]> {
  const path = `${options.tooling ? '/tooling' : ''}/query?q=${encodeURIComponent(soql)}`;
  const operation = options.tooling ? 'tooling' : 'query';
  let page = (await connection.rest<QueryPage<T>>('GET', path, { operation })).body;
  if (options.bulk && !page.done) {
    const all = await readInBulk<T>(connection, soql, page.totalSize, options.bulk);
    if (all) return all;
  }
  const records = [...page.records];
  while (!page.done && page.nextRecordsUrl) {
    page = (await connection.rest<QueryPage<T>>('GET', page.nextRecordsUrl, { operation })).body;
    records.push(...page.records);
  }
  return records;
}

export interface DescribeField {
  readonly name: string;
  readonly type: string;
  readonly label: string;
  readonly length?: number;
  readonly precision?: number;
  readonly scale?: number;
  /** False for fields the user may read but not write (field-level security, system fields). */
  readonly createable?: boolean;
  readonly updateable?: boolean;
}

/** The fields describe shows for an object (those the connecting user can see). */
export async function describeFields(
  connection: SalesforceConnection,
  object: string,
): Promise<DescribeField[]> {
  const { body } = await connection.rest<{ fields: DescribeField[] }>(
    'GET',
    `/sobjects/${object}/describe`,
    { operation: 'describe' },
  );
  return body.fields;
}

/** The column an `INVALID_FIELD` message names, matched to one of the selected columns. */
export function invalidColumn(
  message: string,
  object: string,
  selected: readonly string[],
): string | undefined {
  const match = /No such column '(\w+)' on entity '(\w+)'/.exec(message);
  if (!match) return undefined;
  const column = (match[1] ?? '').toLowerCase();
  if ((match[2] ?? '').toLowerCase() === object.toLowerCase()) {
    return selected.find((s) => s.toLowerCase() === column);
  }
  // A parent's column (Owner.Email) is reported by its own name on the parent entity.
  return selected.find((s) => s.includes('.') && s.toLowerCase().endsWith(`.${column}`));
}

function selectedColumns(soql: string): string[] {
  const list = /^SELECT\s+(.*?)\s+FROM\s/is.exec(soql)?.[1] ?? '';
  return list.split(',').map((c) => c.trim());
}

export interface ReadResult<T> {
  readonly records: T[];
  /** Columns left out because the user cannot read them, in the order they were found. */
  readonly dropped: string[];
}

export type ReadOptions = Omit<QueryOptions, 'maxLength'> & {
  /** Read large results through Bulk API 2.0 query jobs (see `queryAll`). */
  readonly bulk?: Omit<BulkReadOptions, 'fields'> | undefined;
};

/**
 * Reads every record of `object` the query selects, leaving out unreadable columns
 * (`dropped` says which). Other query errors are thrown.
 */
export async function readRecords<T = Record<string, unknown>>(
  connection: SalesforceConnection,
  object: QueryObject,
  options: ReadOptions = {},
): Promise<ReadResult<T>> {
  const described = await describeFields(connection, object);
  const visible = new Set(described.map((f) => f.name.toLowerCase()));
  const bulk = options.bulk && { ...options.bulk, fields: described };
  const wanted = buildQuery(object, { ...options, limit: 1 }).flatMap(selectedColumns);
  const dropped = [...new Set(wanted)].filter(
    (column) => !column.includes('.') && !visible.has(column.toLowerCase()),
  );
  const unreadable = new Set([...(options.unreadable ?? []), ...dropped]);
  for (;;) {
    const queries = buildQuery(object, { ...options, unreadable: [...unreadable] });
    try {
      const records: T[] = [];
      for (const soql of queries) records.push(...(await queryAll<T>(connection, soql, { bulk })));
      return { records, dropped };
    } catch (error) {
      if (!(error instanceof SalesforceError) || error.errorCode !== 'INVALID_FIELD') throw error;
      const column = queries
        .map((q) => invalidColumn(error.message, object, selectedColumns(q)))
        .find((c) => c !== undefined);
      if (!column || column.toLowerCase() === 'id' || unreadable.has(column)) throw error;
      unreadable.add(column);
      dropped.push(column);
    }
  }
}

export interface CrmReadOptions {
  /** Read Account owners (OwnerId, Owner.Email, Owner.Name). Default false. */
  readonly ownerSync?: boolean;
  /** Fields known to be unreadable, as `Object.Field` or `Field` (applies to every object). */
  readonly unreadable?: readonly string[];
  /** Read objects with at least `readThreshold` (default 10,000) records through query jobs. */
  readonly bulk?: BulkOptions | false;
}

export interface CrmRead extends CrmSnapshot {
  readonly accounts: CrmAccount[];
  readonly contacts: CrmContact[];
  readonly leads: CrmLead[];
  readonly opportunities: CrmOpportunity[];
  /** What was left out of each object's query. */
  readonly dropped: Readonly<Record<QueryObject, readonly string[]>>;
}

const QUERY_OBJECTS: readonly string[] = ['Account', 'Contact', 'Lead', 'Opportunity'];

/**
 * The entries of a field list (`unreadable`, `omitFields`) that apply to `object`:
 * `Lead.Title` to Leads only (as `Title`); `Title` or `Owner.Email` to every object.
 */
export function fieldsFor(object: QueryObject, list: readonly string[]): string[] {
  return list.flatMap((entry) => {
    const [first = '', ...rest] = entry.split('.');
    if (!QUERY_OBJECTS.includes(first)) return [entry];
    return first === object ? [rest.join('.')] : [];
  });
}

/** Accounts, Contacts, Leads and Opportunities, ready for `planSync`'s `crm`. */
export async function readCrm(
  connection: SalesforceConnection,
  options: CrmReadOptions = {},
): Promise<CrmRead> {
  const unreadable = options.unreadable ?? [];
  const bulk = options.bulk === false ? undefined : (options.bulk ?? {});
  const read = <T>(object: QueryObject) =>
    readRecords<T>(connection, object, {
      ...(object === 'Account' && options.ownerSync ? { ownerSync: true } : {}),
      unreadable: fieldsFor(object, unreadable),
      ...(bulk
        ? {
            bulk: {
              threshold: bulk.readThreshold ?? DEFAULT_READ_THRESHOLD,
              pageSize: bulk.pageSize ?? DEFAULT_PAGE_SIZE,
              ...(bulk.polling ? { polling: bulk.polling } : {}),
            },
          }
        : {}),
    });
  const accounts = await read<CrmAccount>('Account');
  const contacts = await read<CrmContact>('Contact');
  const leads = await read<CrmLead>('Lead');
  const opportunities = await read<CrmOpportunity>('Opportunity');
  return {
    accounts: accounts.records,
    contacts: contacts.records,
    leads: leads.records,
    opportunities: opportunities.records,
    dropped: {
      Account: accounts.dropped,
      Contact: contacts.dropped,
      Lead: leads.dropped,
      Opportunity: opportunities.dropped,
    },
  };
}
