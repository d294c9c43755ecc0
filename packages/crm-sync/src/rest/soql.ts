/**
 * SOQL for the records the service reads (docs/crm-sync/salesforce-setup.md, "The fields the
 * service reads"): baseline fields, unreadable fields removed, string literals escaped, and long
 * `IN (...)` lists split across queries.
 */
import { CrmSyncError } from '../model/errors.js';
import type { QueryObject } from '../model/objects.js';

/**
 * Salesforce's default maximum length of a SOQL statement, in characters. A GET query also
 * travels in the URL: callers that hit a URI length limit pass a smaller `maxLength`.
 */
export const SOQL_MAX_LENGTH = 100_000;

/**
 * Baseline fields per object, as the table of docs/crm-sync/salesforce-setup.md lists them:
 * Account `Type` gives the Pipeline Stage (docs/crm-sync/planning.md) and the Lead conversion
 * fields say a Lead cannot be updated (its data goes to the Contact it became).
 */
export const baselineFields: Readonly<Record<QueryObject, readonly string[]>> = {
  Account: ['Id', 'Name', 'LastModifiedDate', 'Website', 'Type'],
  Contact: [
    'AccountId',
    'Id',
    'Name',
    'Title',
    'Email',
    'OwnerId',
    'Owner.Name',
    'CreatedDate',
    'LastActivityDate',
    'LastModifiedDate',
    'MailingCity',
    'MailingState',
    'MailingCountry',
  ],
  Lead: [
    'Id',
    'Name',
    'Title',
    'Email',
    'OwnerId',
    'Owner.Name',
    'Status',
    'CreatedDate',
    'LastActivityDate',
    'LastModifiedDate',
    'City',
    'State',
    'Country',
    'IsConverted',
    'ConvertedContactId',
    'ConvertedAccountId',
  ],
  Opportunity: ['Id', 'CloseDate', 'Type', 'IsClosed', 'IsWon', 'LastModifiedDate', 'AccountId'],
};
/** Read for Accounts only when owner sync is on. */
export const accountOwnerFields: readonly string[] = ['OwnerId', 'Owner.Email', 'Owner.Name'];

/**
 * A date or dateTime literal, written unquoted as SOQL requires (`CloseDate > 2024-01-01`,
 * `LastModifiedDate > 2024-01-01T00:00:00Z`); a JavaScript `Date` is a dateTime in UTC.
 */
export type SoqlDateLiteral = { readonly date: string } | { readonly dateTime: string | Date };
/** A value in a SOQL condition; dates and dateTimes are written unquoted, as SOQL requires. */
export type SoqlValue = string | number | boolean | null | Date | SoqlDateLiteral;
/** A comparison operator of a SOQL condition. */
export type SoqlOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | 'LIKE';
/** One condition; the conditions of a query are joined with AND. */
export type SoqlCondition =
  | { readonly field: string; readonly op?: SoqlOperator; readonly value: SoqlValue }
  | { readonly field: string; readonly in: readonly SoqlValue[] };

/**
 * A parent-to-child subquery in the SELECT list: `(SELECT IsClosed, IsWon FROM Opportunities)`,
 * named by the child relationship (for standard objects, the plural of the child).
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_relationships_query_using.htm
 */
export interface ChildQuery {
  readonly relationship: string;
  readonly fields: readonly string[];
  readonly where?: readonly SoqlCondition[];
}

/** What `buildQuery` reads, filters and how long a query may be. */
export interface QueryOptions {
  /** Read the Account owner (OwnerId, Owner.Email, Owner.Name). Default false. */
  readonly ownerSync?: boolean;
  /** Fields the org does not let the integration user read: removed from the SELECT (case-insensitive). */
  readonly unreadable?: readonly string[];
  /** Extra fields to read (e.g. the Service fields, to compare before writing). */
  readonly fields?: readonly string[];
  readonly where?: readonly SoqlCondition[];
  /** Subqueries of child records, selected after the fields. */
  readonly children?: readonly ChildQuery[];
  readonly limit?: number;
  /** Longest query to produce, as `measure` counts it; default `SOQL_MAX_LENGTH`. */
  readonly maxLength?: number;
  /**
   * How a query's length is counted (default: characters), e.g. percent-encoded as it travels
   * in a GET URL. It must add up over concatenation, as both do.
   */
  readonly measure?: (text: string) => number;
}

const characters = (text: string) => text.length;

const FIELD_PATH = /^[A-Za-z][A-Za-z0-9_]*(?:\.[A-Za-z][A-Za-z0-9_]*)*$/;
const ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\b': '\\b',
  '\f': '\\f',
};

/** A SOQL string literal, quotes included, escaped per Salesforce's documented escape sequences. */
export function escapeSoqlString(value: string): string {
  return `'${value.replace(/[\\'"\n\r\t\b\f]/g, (c) => ESCAPES[c] ?? c)}'`;
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,3})?(?:Z|[+-]\d{2}:\d{2})$/;

function dateTimeLiteral(value: string | Date): string {
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) throw new CrmSyncError('invalid_input', 'Invalid Date');
    return value.toISOString().replace('.000Z', 'Z');
  }
  if (!DATE_TIME.test(value))
    throw new CrmSyncError('invalid_input', `Not a SOQL dateTime: ${JSON.stringify(value)}`);
  return value;
}

function literal(value: SoqlValue): string {
  if (value === null) return 'null';
  if (value instanceof Date) return dateTimeLiteral(value);
  if (typeof value === 'object') {
    if ('dateTime' in value) return dateTimeLiteral(value.dateTime);
    if (!DATE.test(value.date))
      throw new CrmSyncError('invalid_input', `Not a SOQL date: ${JSON.stringify(value.date)}`);
    return value.date;
  }
  if (typeof value === 'boolean') return value ? 'TRUE' : 'FALSE';
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new CrmSyncError('invalid_input', `Not a SOQL number: ${value}`);
    return String(value);
  }
  return escapeSoqlString(value);
}

function fieldName(name: string): string {
  if (!FIELD_PATH.test(name))
    throw new CrmSyncError('invalid_input', `Not a field name: ${JSON.stringify(name)}`);
  return name;
}

/** `list`: the values of an `IN` condition as they are written, when only some of them are. */
function condition(c: SoqlCondition, list?: string): string {
  if ('in' in c) return `${fieldName(c.field)} IN (${list ?? c.in.map(literal).join(', ')})`;
  return `${fieldName(c.field)} ${c.op ?? '='} ${literal(c.value)}`;
}

function subquery({ relationship, fields, where = [] }: ChildQuery): string {
  if (fields.length === 0)
    throw new CrmSyncError('invalid_input', `The subquery on ${relationship} selects no field`);
  const clauses = where.map((c) => condition(c));
  return `(SELECT ${fields.map(fieldName).join(', ')} FROM ${fieldName(relationship)}${clauses.length > 0 ? ` WHERE ${clauses.join(' AND ')}` : ''})`;
}

/**
 * The SOQL to read `object`: one query, or several when an `IN` list is too long for one (the
 * longest `IN` list is split; the results of all queries together are the answer). An `IN` list
 * with no values matches nothing: no query is returned. `Id` is always read.
 * Throws `CrmSyncError` (`invalid_input` for a bad field name or value, `query_too_long` when even
 * one value per query does not fit).
 */
export function buildQuery(object: QueryObject, options: QueryOptions = {}): string[] {
  const {
    ownerSync = false,
    unreadable = [],
    fields = [],
    where = [],
    children = [],
    limit,
    maxLength = SOQL_MAX_LENGTH,
    measure = characters,
  } = options;
  const baseline = baselineFields[object];
  if (baseline === undefined)
    throw new CrmSyncError('invalid_input', `Cannot query ${JSON.stringify(object)}`);
  const hidden = new Set(unreadable.map((f) => f.toLowerCase()));
  hidden.delete('id');
  const selected = new Map<string, string>();
  for (const name of [
    ...baseline,
    ...(object === 'Account' && ownerSync ? accountOwnerFields : []),
    ...fields,
  ]) {
    const key = fieldName(name).toLowerCase();
    if (!hidden.has(key) && !selected.has(key)) selected.set(key, name);
  }
  if (limit !== undefined && (!Number.isInteger(limit) || limit < 1)) {
    throw new CrmSyncError('invalid_input', `limit must be a positive integer, got ${limit}`);
  }
  const lists = where.filter((c) => 'in' in c);
  if (lists.some((c) => c.in.length === 0)) return [];
  const split = lists.reduce<(typeof lists)[number] | undefined>(
    (longest, c) => (longest === undefined || c.in.length > longest.in.length ? c : longest),
    undefined,
  );
  const columns = [...selected.values(), ...children.map(subquery)].join(', ');
  const compose = (list?: string) => {
    const clauses = where.map((c) => condition(c, c === split ? list : undefined));
    return [
      `SELECT ${columns} FROM ${object}`,
      clauses.length > 0 ? ` WHERE ${clauses.join(' AND ')}` : '',
      limit !== undefined ? ` LIMIT ${limit}` : '',
    ].join('');
  };
  const whole = compose();
  if (measure(whole) <= maxLength) return [whole];
  if (split === undefined) {
    throw new CrmSyncError(
      'query_too_long',
      `The query is ${measure(whole)} long, over ${maxLength}`,
    );
  }
  return packTerms(split.in.map(literal), ', ', compose, { maxLength, measure });
}

/**
 * The queries that together ask for every one of `terms` (the values of an `IN` list, or
 * conditions joined by `OR`), as few as fit `maxLength` as `measure` counts it (default
 * `SOQL_MAX_LENGTH` characters), terms in order: `compose` writes a query around a run of terms
 * joined by `separator`. Throws `CrmSyncError` (`query_too_long`) when one term alone does not fit.
 */
export function packTerms(
  terms: readonly string[],
  separator: string,
  compose: (joined: string) => string,
  bound: Pick<QueryOptions, 'maxLength' | 'measure'> = {},
): string[] {
  const { maxLength = SOQL_MAX_LENGTH, measure = characters } = bound;
  const room = maxLength - measure(compose(''));
  const gap = measure(separator);
  const queries: string[] = [];
  let run: string[] = [];
  let used = 0;
  for (const term of terms) {
    const size = measure(term);
    if (size > room) {
      throw new CrmSyncError('query_too_long', `One value does not fit a query of ${maxLength}`);
    }
    if (run.length > 0 && used + gap + size > room) {
      queries.push(compose(run.join(separator)));
      run = [];
    }
    used = run.length === 0 ? size : used + gap + size;
    run.push(term);
  }
  if (run.length > 0) queries.push(compose(run.join(separator)));
  return queries;
}
