/**
 * Reads (docs/crm-sync/salesforce-setup.md, "The fields the service reads"): the SOQL of the
 * core's `buildQuery`, every page followed. Fields the integration user cannot read are dropped
 * instead of failing the sync: first those the describe does not show, then, one at a time, any
 * column an `INVALID_FIELD` answer still names (Salesforce names only the first bad column, and a
 * field hidden by field-level security looks the same as one that does not exist).
 */

import type { CrmObject, QueryObject } from '../../model/objects.js';
import type {
  CrmAccount,
  CrmContact,
  CrmLead,
  CrmOpportunity,
  CrmSnapshot,
} from '../../plan/types.js';
import { buildQuery, type ChildQuery, type QueryOptions } from '../../rest/soql.js';
import { type BulkOptions, DEFAULT_PAGE_SIZE, DEFAULT_READ_THRESHOLD } from '../bulk/options.js';
import { type BulkReadOptions, readInBulk } from '../bulk/query.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { SalesforceError } from '../errors.js';
import { BUSINESS_ACCOUNTS, showsPersonAccounts } from './person-accounts.js';
import { queryUriBound } from './query-uri.js';

/** One page of a REST query's records. */
export interface QueryPage<T> {
  readonly totalSize: number;
  readonly done: boolean;
  readonly nextRecordsUrl?: string;
  readonly records: T[];
}

/** How `queryAll` queries: Tooling API, deleted records, Bulk API 2.0. */
export interface QueryCallOptions<T = Record<string, unknown>> {
  readonly tooling?: boolean;
  /**
   * Through the QueryAll resource (or a `queryAll` job): records in the Recycle Bin come back
   * too, with `IsDeleted` true (how an incremental read learns of deletions).
   * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_queryall.htm
   */
  readonly includeDeleted?: boolean;
  /** The object's describe, for a job's CSV when `bulk.fields` is empty (asked only then). */
  readonly describe?: () => Promise<readonly DescribeField[]>;
  /**
   * A query whose first page counts at least `bulk.threshold` records is read by a Bulk API
   * 2.0 job; one with a child subquery (which jobs cannot run) throws `TooManyForSubquery`.
   */
  readonly bulk?: BulkReadOptions | undefined;
  /**
   * Records the query is known to match at the least (an earlier run wrote them): from the bulk
   * threshold on, a job reads them without a REST page first to count them.
   */
  readonly expected?: number | undefined;
  /**
   * Called with each REST page's records before the next page is asked for: a child
   * subquery's further pages are read then, since asking for the parent's next page
   * invalidates their cursors.
   */
  readonly eachPage?: (records: T[]) => Promise<void>;
}

/**
 * A query with a child subquery matched more records than the bulk threshold. Its callers read
 * without the subquery instead; the message says what happened should one reach a user (an
 * empty one made the 100,000-record bench print "unexpected error:" and nothing else).
 */
export class TooManyForSubquery extends Error {
  constructor(soql: string, totalSize: number) {
    super(
      `${totalSize} records match a query with a child subquery, which a Bulk API job cannot run: ${soql.slice(0, 120)}`,
    );
  }
}

/** Runs one SOQL query and follows `nextRecordsUrl` to the last page (or see `bulk`). */
export async function queryAll<T = Record<string, unknown>>(
  connection: SalesforceConnection,
  soql: string,
  options: QueryCallOptions<T> = {},
): Promise<T[]> {
  const resource = options.tooling
    ? '/tooling/query'
    : options.includeDeleted
      ? '/queryAll'
      : '/query';
  const path = `${resource}?q=${encodeURIComponent(soql)}`;
  const operation = options.tooling ? 'tooling' : 'query';
  const inBulk = async (bulk: BulkReadOptions, count: number) => {
    // A read that skipped describe asks it now: the job's CSV is typed by it.
    const fields = bulk.fields.length > 0 ? bulk.fields : ((await options.describe?.()) ?? []);
    return readInBulk<T>(connection, soql, count, {
      ...bulk,
      fields,
      operation: options.includeDeleted ? 'queryAll' : 'query',
    });
  };
  // Known to be large: straight to a job (one that cannot be made leaves the read to REST).
  const expected = options.expected ?? 0;
  if (options.bulk && expected >= options.bulk.threshold) {
    const all = await inBulk(options.bulk, expected);
    if (all) return all;
  }
  let page = (await connection.rest<QueryPage<T>>('GET', path, { operation })).body;
  if (options.bulk && !page.done && page.totalSize >= options.bulk.threshold) {
    if (/\(\s*SELECT\s/i.test(soql)) throw new TooManyForSubquery(soql, page.totalSize);
    const all = await inBulk(options.bulk, page.totalSize);
    if (all) return all;
  }
  try {
    return await followPages(connection, page, operation, options.eachPage);
  } catch (error) {
    if (!pageLost(error)) throw error;
    // A query locator is used once: the read starts again from its first page, once.
    page = (await connection.rest<QueryPage<T>>('GET', path, { operation })).body;
    return followPages(connection, page, operation, options.eachPage);
  }
}

/**
 * A further page of a query that could not be read: its answer was lost (a reset, a timeout)
 * or its locator is spent. A locator is used once, so the page is not asked for again.
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_querymore_querylocator.htm
 */
const pageLost = (error: unknown) =>
  error instanceof SalesforceError &&
  (error.code === 'network' || error.errorCode === 'INVALID_QUERY_LOCATOR');

/** The records of `first` and of every page after it. */
async function followPages<T>(
  connection: SalesforceConnection,
  first: QueryPage<T>,
  operation: string,
  eachPage: ((records: T[]) => Promise<void>) | undefined,
): Promise<T[]> {
  let page = first;
  await eachPage?.(page.records);
  const records = [...page.records];
  while (!page.done && page.nextRecordsUrl) {
    page = (await connection.rest<QueryPage<T>>('GET', page.nextRecordsUrl, { operation })).body;
    await eachPage?.(page.records);
    records.push(...page.records);
  }
  return records;
}

/** A field as the object's describe shows it to the connecting user. */
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
  /** A picklist's values (`validFor`: for a dependent one, the controlling values allowing it). */
  readonly picklistValues?: readonly DescribePicklistEntry[];
  /** Only the listed values are accepted. */
  readonly restrictedPicklist?: boolean;
  /** The field a dependent picklist depends on (a state code's country code). */
  readonly controllerName?: string | null;
}

/** One value of a picklist as describe shows it. */
export interface DescribePicklistEntry {
  readonly value: string;
  readonly label: string | null;
  readonly active: boolean;
  /** Base64 bits, one per value of the controlling picklist in its order, most significant first. */
  readonly validFor?: string | null;
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

/** The columns of the outer SELECT (subqueries of child records left out). */
export function selectedColumns(soql: string): string[] {
  const outer = soql.replace(/\(SELECT\s[^()]*\)/gi, '');
  const list = /^SELECT\s+(.*?)\s+FROM\s/is.exec(outer)?.[1] ?? '';
  return list
    .split(',')
    .map((c) => c.trim())
    .filter((c) => c !== '');
}

/**
 * A child subquery's records nest in each parent as a query result of their own (null when
 * there are none); a long list comes in pages behind its own `nextRecordsUrl`, which must be
 * read before the parent's next page is asked for: that invalidates the child cursors.
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_relationships_query_results.htm
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_querymore_queryresult.htm
 */
async function followChildren(
  connection: SalesforceConnection,
  records: readonly Record<string, unknown>[],
  relationships: readonly string[],
): Promise<void> {
  for (const record of records) {
    for (const name of relationships) {
      let page = record[name] as QueryPage<unknown> | null | undefined;
      const children = [...(page?.records ?? [])];
      while (page && !page.done && page.nextRecordsUrl) {
        page = (
          await connection.rest<QueryPage<unknown>>('GET', page.nextRecordsUrl, {
            operation: 'query',
          })
        ).body;
        children.push(...page.records);
      }
      record[name] = children;
    }
  }
}

/** Records read, and the columns left out because the user cannot read them. */
export interface ReadResult<T> {
  readonly records: T[];
  /** Columns left out because the user cannot read them, in the order they were found. */
  readonly dropped: string[];
  /** The describe types of the object's fields, when describe was asked (kept by a snapshot). */
  readonly types?: Readonly<Record<string, string>>;
}

/** What `readRecords` reads: `buildQuery`'s options, deleted records, Bulk API 2.0. */
export interface ReadOptions extends Omit<QueryOptions, 'maxLength' | 'measure'> {
  readonly includeDeleted?: boolean;
  /** Read large results through Bulk API 2.0 query jobs (see `queryAll`). */
  readonly bulk?: Omit<BulkReadOptions, 'fields'> | undefined;
  /**
   * Columns already known to be unreadable (from an earlier read): left out without asking
   * describe first (a read large enough for a job asks it then, to type the job's CSV).
   */
  readonly knownDropped?: readonly string[];
  /** The describe types of the fields (from an earlier read): a job then needs no describe. */
  readonly knownTypes?: Readonly<Record<string, string>> | undefined;
  /** Records the read is known to return at the least (see `queryAll`'s `expected`). */
  readonly expected?: number | undefined;
}

/**
 * Reads every record of `object` the query selects, leaving out unreadable columns
 * (`dropped` says which). Child subqueries come back as arrays of every child. Other query
 * errors are thrown.
 */
export async function readRecords<T = Record<string, unknown>>(
  connection: SalesforceConnection,
  object: QueryObject,
  options: ReadOptions = {},
): Promise<ReadResult<T>> {
  const {
    knownDropped,
    knownTypes,
    includeDeleted,
    expected,
    bulk: bulkOptions,
    ...query
  } = options;
  const described = knownDropped ? undefined : await describeFields(connection, object);
  const dropped = knownDropped ? [...knownDropped] : hiddenColumns(object, query, described ?? []);
  const names = described?.map((f) => f.name) ?? Object.keys(knownTypes ?? {});
  // Person accounts are people, not companies: never read as one (person-accounts.ts).
  const where =
    object === 'Account' && showsPersonAccounts(names)
      ? { where: [...(query.where ?? []), BUSINESS_ACCOUNTS] }
      : {};
  const bulk = bulkOptions && { ...bulkOptions, fields: described ?? [] };
  const unreadable = new Set([...(query.unreadable ?? []), ...dropped]);
  const relationships = (query.children ?? []).map((c) => c.relationship);
  for (;;) {
    const queries = buildQuery(object, {
      ...query,
      ...where,
      unreadable: [...unreadable],
      ...queryUriBound,
    });
    try {
      const records: T[] = [];
      for (const soql of queries) {
        const page = await queryAll<T>(connection, soql, {
          includeDeleted: includeDeleted === true,
          bulk,
          expected,
          describe: async () =>
            knownTypes
              ? Object.entries(knownTypes).map(([name, type]) => ({ name, type, label: name }))
              : describeFields(connection, object),
          ...(relationships.length > 0
            ? {
                eachPage: (rows: T[]) =>
                  followChildren(connection, rows as Record<string, unknown>[], relationships),
              }
            : {}),
        });
        records.push(...page);
      }
      const types = described && Object.fromEntries(described.map((f) => [f.name, f.type]));
      return { records, dropped, ...(types ? { types } : {}) };
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

/** The selected columns describe does not show the user (hidden by field-level security). */
function hiddenColumns(
  object: QueryObject,
  query: Omit<QueryOptions, 'maxLength'>,
  described: readonly DescribeField[],
): string[] {
  const visible = new Set(described.map((f) => f.name.toLowerCase()));
  const wanted = buildQuery(object, { ...query, limit: 1 }).flatMap(selectedColumns);
  return [...new Set(wanted)].filter(
    (column) => !column.includes('.') && !visible.has(column.toLowerCase()),
  );
}

/** What `readCrm` reads: owners, fields known to be unreadable, extra fields, Bulk API 2.0. */
export interface CrmReadOptions {
  /** Read Account owners (OwnerId, Owner.Email, Owner.Name). Default false. */
  readonly ownerSync?: boolean;
  /** Fields known to be unreadable, as `Object.Field` or `Field` (applies to every object). */
  readonly unreadable?: readonly string[];
  /** Columns to read beside the baseline, per object (e.g. the Service fields a plan may set). */
  readonly fields?: Readonly<Partial<Record<CrmObject, readonly string[]>>>;
  /** Read objects with at least `readThreshold` (default 10,000) records through query jobs. */
  readonly bulk?: BulkOptions | false;
}

/** What `readCrm` read: the records `planSync` takes, and the columns left out per object. */
export interface CrmRead extends CrmSnapshot {
  readonly accounts: CrmAccount[];
  readonly contacts: CrmContact[];
  readonly leads: CrmLead[];
  readonly opportunities: CrmOpportunity[];
  /** What was left out of each object's query. */
  readonly dropped: Readonly<Record<QueryObject, readonly string[]>>;
}

/**
 * The Opportunity facts of Pipeline Stage, read with the Accounts as a subquery instead of a
 * read of every Opportunity. Records in the Recycle Bin are left out explicitly, so a queryAll
 * (which returns them) gives the same stage as a query.
 */
export const STAGE_SUBQUERY: ChildQuery = {
  relationship: 'Opportunities',
  fields: ['Id', 'IsClosed', 'IsWon', 'SystemModstamp'],
  where: [{ field: 'IsDeleted', value: false }],
};

/** Moves each Account's subquery children out into Opportunity facts (with their AccountId). */
export function withOpportunities(records: readonly Record<string, unknown>[]): {
  accounts: CrmAccount[];
  opportunities: CrmOpportunity[];
} {
  const accounts: CrmAccount[] = [];
  const opportunities: CrmOpportunity[] = [];
  for (const { [STAGE_SUBQUERY.relationship]: children, ...account } of records) {
    accounts.push(account as unknown as CrmAccount);
    for (const child of (children ?? []) as Record<string, unknown>[]) {
      const { attributes: _attributes, ...facts } = child;
      opportunities.push({
        ...(facts as unknown as CrmOpportunity),
        AccountId: String(account.Id),
      });
    }
  }
  return { accounts, opportunities };
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

/**
 * Accounts (with the facts of their Opportunities, from one subquery), Contacts and Leads, ready
 * for `planSync`'s `crm`.
 */
export async function readCrm(
  connection: SalesforceConnection,
  options: CrmReadOptions = {},
): Promise<CrmRead> {
  const read = <T>(object: CrmObject) =>
    readRecords<T>(connection, object, crmReadOptions(object, options));
  const accounts = await readAccountsWithStage(connection, crmReadOptions('Account', options));
  const contacts = await read<CrmContact>('Contact');
  const leads = await read<CrmLead>('Lead');
  return {
    accounts: accounts.accounts,
    opportunities: accounts.opportunities,
    contacts: contacts.records,
    leads: leads.records,
    dropped: {
      Account: accounts.dropped,
      Contact: contacts.dropped,
      Lead: leads.dropped,
      Opportunity: [],
    },
  };
}

/** The read options of `object` in a read of the CRM. */
export function crmReadOptions(object: QueryObject, options: CrmReadOptions): ReadOptions {
  const bulk = options.bulk === false ? undefined : (options.bulk ?? {});
  return {
    ...(object === 'Account' && options.ownerSync ? { ownerSync: true } : {}),
    unreadable: fieldsFor(object, options.unreadable ?? []),
    fields: (object === 'Opportunity' ? undefined : options.fields?.[object]) ?? [],
    ...(bulk
      ? {
          bulk: {
            threshold: bulk.readThreshold ?? DEFAULT_READ_THRESHOLD,
            pageSize: bulk.pageSize ?? DEFAULT_PAGE_SIZE,
            ...(bulk.polling ? { polling: bulk.polling } : {}),
          },
        }
      : {}),
  };
}

/**
 * Accounts with the Opportunity facts of Pipeline Stage from one subquery. An org with more
 * Accounts than the bulk threshold reads them through a query job instead, and the
 * Opportunities through another (jobs cannot run subqueries): the same facts.
 */
export async function readAccountsWithStage(
  connection: SalesforceConnection,
  options: ReadOptions,
): Promise<{
  accounts: CrmAccount[];
  opportunities: CrmOpportunity[];
  dropped: string[];
  types?: Readonly<Record<string, string>>;
}> {
  // One describe for both tries: the read without the subquery knows what the first found.
  const described = options.knownDropped ? undefined : await describeFields(connection, 'Account');
  const known: ReadOptions = described
    ? {
        knownDropped: hiddenColumns('Account', options, described),
        knownTypes: Object.fromEntries(described.map((f) => [f.name, f.type])),
      }
    : {};
  const types = described ? { types: known.knownTypes ?? {} } : {};
  try {
    const { records, dropped } = await readRecords<Record<string, unknown>>(connection, 'Account', {
      ...options,
      ...known,
      children: [STAGE_SUBQUERY],
    });
    return { ...withOpportunities(records), dropped, ...types };
  } catch (error) {
    if (!(error instanceof TooManyForSubquery)) throw error;
  }
  const accounts = await readRecords<CrmAccount>(connection, 'Account', { ...options, ...known });
  const opportunities = await readRecords<Record<string, unknown>>(connection, 'Opportunity', {
    ...(options.bulk ? { bulk: options.bulk } : {}),
    fields: STAGE_SUBQUERY.fields,
    where: [{ field: 'AccountId', op: '!=', value: null }],
  });
  return {
    accounts: accounts.records,
    opportunities: opportunities.records.map(
      ({ Id, AccountId, IsClosed, IsWon, SystemModstamp }) =>
        ({ Id, AccountId, IsClosed, IsWon, SystemModstamp }) as unknown as CrmOpportunity,
    ),
    dropped: accounts.dropped,
    ...types,
  };
}
