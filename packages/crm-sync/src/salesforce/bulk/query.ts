/**
 * Large reads through Bulk API 2.0 query jobs. The REST query's first page says how many
 * records match (`totalSize`); from `threshold` on, the rest is read by a query job instead of
 * page after page of 2,000, and its CSV rows are turned into the records the REST API would
 * give: numbers and booleans typed by describe, empty cells as null, datetimes as
 * `...+0000`, `Owner.Email` as `Owner: { Email }` (without `attributes`). Queries a job cannot
 * run (parent-to-child subqueries, aggregates) stay on REST, and so does a read whose job fails.
 */

import type { SalesforceConnection } from '../connection/connection.js';
import { SalesforceError } from '../errors.js';
import { type BulkPolling, openQueryJob, queryResultsPage, waitForJob } from './jobs.js';

/** How a large query is read through a Bulk API 2.0 query job. */
export interface BulkReadOptions {
  /** Matching records from which a query job reads them (default 10,000). */
  readonly threshold: number;
  /** Rows per page of results (`maxRecords`). */
  readonly pageSize: number;
  readonly polling?: BulkPolling;
  /** The object's fields as describe shows them, to type the CSV values. */
  readonly fields: readonly { readonly name: string; readonly type: string }[];
  /** `queryAll`: records in the Recycle Bin too (default `query`). */
  readonly operation?: 'query' | 'queryAll';
}

/**
 * Parent-to-child subqueries, aggregate functions, GROUP BY and OFFSET are not supported by
 * query jobs.
 * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/queries.htm
 */
const UNSUPPORTED = /\(\s*SELECT\s|\bCOUNT\s*\(|\bGROUP\s+BY\b|\bOFFSET\b/i;

const NUMBERS = new Set(['double', 'int', 'long', 'currency', 'percent']);

function typed(text: string, type: string | undefined): unknown {
  if (text === '') return null;
  if (type && NUMBERS.has(type)) return Number(text);
  if (type === 'boolean') return text.toLowerCase() === 'true';
  if (type === 'datetime') return text.replace(/Z$/, '+0000');
  return text;
}

/** A CSV row as the REST API's record: typed values, dotted columns as nested objects. */
function recordOf(
  row: Readonly<Record<string, string>>,
  types: ReadonlyMap<string, string>,
): Record<string, unknown> {
  const record: Record<string, unknown> = {};
  for (const [column, text] of Object.entries(row)) {
    const [head = '', ...path] = column.split('.');
    if (path.length === 0) {
      record[head] = typed(text, types.get(head.toLowerCase()));
      continue;
    }
    // A parent with no value in any of its columns is null, as REST gives it.
    let parent = (record[head] ?? null) as Record<string, unknown> | null;
    if (text === '' && parent === null) continue;
    parent ??= {};
    record[head] = parent;
    let node = parent;
    for (const part of path.slice(0, -1)) {
      node[part] ??= {};
      node = node[part] as Record<string, unknown>;
    }
    node[path[path.length - 1] as string] = typed(text, undefined);
  }
  for (const column of Object.keys(row)) {
    const head = column.split('.')[0] ?? '';
    if (column.includes('.') && !(head in record)) record[head] = null;
  }
  return record;
}

/**
 * Reads `soql` through a query job when `totalSize` (from the REST query's first page)
 * reaches the threshold; undefined when it does not, or the job could not do it (the caller
 * then goes on with REST).
 */
export async function readInBulk<T>(
  connection: SalesforceConnection,
  soql: string,
  totalSize: number,
  options: BulkReadOptions,
): Promise<T[] | undefined> {
  if (totalSize < options.threshold || UNSUPPORTED.test(soql)) return undefined;
  let id: string;
  try {
    id = await openQueryJob(connection, soql, options.operation);
  } catch (error) {
    if (error instanceof SalesforceError && error.code === 'request_failed') return undefined;
    throw error;
  }
  const info = await waitForJob(connection, 'query', id, options.polling);
  if (info.state !== 'JobComplete') return undefined;
  const types = new Map(options.fields.map((f) => [f.name.toLowerCase(), f.type]));
  const records: T[] = [];
  let locator: string | undefined;
  do {
    const page = await queryResultsPage(connection, id, {
      maxRecords: options.pageSize,
      ...(locator ? { locator } : {}),
    });
    for (const row of page.rows) records.push(recordOf(row, types) as T);
    locator = page.locator;
  } while (locator);
  return records;
}
