// Runs a SOQL query (parsed with soql-parser-js) against the emulated org: field
// selection with parent relationships, WHERE with AND/OR/parentheses, =, !=, <, <=, >, >=,
// IN, NOT IN, LIKE, date and dateTime literals, ORDER BY, LIMIT, parent-to-child subqueries. Unknown or unreadable columns give INVALID_FIELD naming the first one, the
// way Salesforce does.
import { createRequire } from 'node:module';
import type { Org, SfRecord } from './org.ts';
import { hiddenBySharing } from './sharing.ts';

// soql-parser-js ships a UMD bundle: Node's ESM loader sees no named exports in it.
const { parseQuery } = createRequire(import.meta.url)(
  'soql-parser-js',
) as typeof import('soql-parser-js');

// No parameter properties here: the benchmark runs this file with Node's type stripping.
export class SoqlError extends Error {
  readonly errorCode: string;
  constructor(errorCode: string, message: string) {
    super(message);
    this.errorCode = errorCode;
  }
}

type Token = '(' | ')' | 'AND' | 'OR' | { condition: Condition };

interface Condition {
  field: string;
  operator: string;
  literalType?: string | string[];
  value?: string | string[];
}

interface WhereNode {
  left?: Condition & { openParen?: number; closeParen?: number };
  operator?: string;
  right?: WhereNode;
}

function invalidField(soql: string, object: string, column: string): SoqlError {
  return new SoqlError(
    'INVALID_FIELD',
    `\n${soql}\n^\nERROR at Row:1:Column:1\nNo such column '${column}' on entity '${object}'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name. Please reference your WSDL or the describe call for the appropriate names.`,
  );
}

/** Resolve `A.B.C` from a record, following parent relationships; checks readability. */
interface Context {
  org: Org;
  soql: string;
  /** Tooling API: Profile.FullName is selectable there only. */
  tooling: boolean;
}

function resolve(
  context: Context,
  object: string,
  record: SfRecord | undefined,
  path: string[],
): unknown {
  const { org, soql } = context;
  const [head, ...rest] = path;
  if (head === undefined) return undefined;
  if (rest.length === 0) {
    const toolingOnly = object === 'Profile' && head === 'FullName';
    if (!org.queryable(object, head) || (toolingOnly && !context.tooling)) {
      throw invalidField(soql, object, head);
    }
    // A record's boolean field is true or false, never null (IsPersonAccount of an Account
    // inserted before person accounts were on, say).
    // https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/primitive_data_types.htm
    const unset = record && org.fields.get(object)?.get(head)?.type === 'boolean' ? false : null;
    return record?.[head] ?? unset;
  }
  const relationship = org.relationship(object, head);
  if (!relationship) throw invalidField(soql, object, head);
  const parentId = record?.[relationship.idField];
  const parent =
    typeof parentId === 'string' ? org.table(relationship.target).get(parentId) : undefined;
  return resolve(context, relationship.target, parent, rest);
}

/** An instant of a date, dateTime or stored value (`...+0000`), for comparisons. */
function instant(value: string): number {
  return Date.parse(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
}

function literal(raw: string, type: string | undefined): unknown {
  if (type === 'BOOLEAN') return raw.toUpperCase() === 'TRUE';
  if (type === 'DATETIME' || type === 'DATE') return { instant: instant(raw) };
  if (type === 'NULL') return null;
  if (type === 'INTEGER' || type === 'DECIMAL') return Number(raw);
  if (raw.startsWith("'") && raw.endsWith("'")) {
    return raw.slice(1, -1).replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
  }
  return raw;
}

function likeToRegExp(pattern: string): RegExp {
  const body = pattern
    .split('')
    .map((c) => (c === '%' ? '.*' : c === '_' ? '.' : c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${body}$`, 'i');
}

function test(actual: unknown, condition: Condition): boolean {
  const types = Array.isArray(condition.literalType) ? condition.literalType : undefined;
  const values = Array.isArray(condition.value)
    ? condition.value.map((v, i) => literal(v, types?.[i] ?? (condition.literalType as string)))
    : [literal(condition.value ?? '', condition.literalType as string | undefined)];
  const order = (a: unknown, b: unknown): number | undefined => {
    if (a === null || a === undefined || b === null || b === undefined) return undefined;
    if (typeof b === 'object' && 'instant' in b) return instant(String(a)) - (b.instant as number);
    if (typeof a === 'number' && typeof b === 'number') return a - b;
    return String(a).localeCompare(String(b));
  };
  const eq = (a: unknown, b: unknown) =>
    typeof a === 'string' && typeof b === 'string'
      ? a.toLowerCase() === b.toLowerCase()
      : b !== null && typeof b === 'object'
        ? order(a, b) === 0
        : (a ?? null) === (b ?? null);
  const compare = (test: (n: number) => boolean) => {
    const n = order(actual, values[0]);
    return n !== undefined && test(n);
  };
  switch (condition.operator.toUpperCase()) {
    case '=':
      return eq(actual, values[0]);
    case '!=':
      return !eq(actual, values[0]);
    case '<':
      return compare((n) => n < 0);
    case '<=':
      return compare((n) => n <= 0);
    case '>':
      return compare((n) => n > 0);
    case '>=':
      return compare((n) => n >= 0);
    case 'IN':
      return values.some((v) => eq(actual, v));
    case 'NOT IN':
      return !values.some((v) => eq(actual, v));
    case 'LIKE':
      return typeof actual === 'string' && likeToRegExp(String(values[0])).test(actual);
    default:
      throw new SoqlError('MALFORMED_QUERY', `unsupported operator ${condition.operator}`);
  }
}

function tokens(where: WhereNode | undefined): Token[] {
  const out: Token[] = [];
  for (let node = where; node; node = node.right) {
    if (node.left) {
      for (let i = 0; i < (node.left.openParen ?? 0); i++) out.push('(');
      out.push({ condition: node.left });
      for (let i = 0; i < (node.left.closeParen ?? 0); i++) out.push(')');
    }
    if (node.operator === 'AND' || node.operator === 'OR') out.push(node.operator);
  }
  return out;
}

/** Recursive descent over the flat token list: OR of ANDs of atoms. */
function evaluate(list: Token[], check: (c: Condition) => boolean): boolean {
  let at = 0;
  const atom = (): boolean => {
    const token = list[at++];
    if (token === '(') {
      const value = or();
      at++; // ')'
      return value;
    }
    if (token && typeof token === 'object') return check(token.condition);
    throw new SoqlError('MALFORMED_QUERY', 'unexpected token in WHERE');
  };
  const and = (): boolean => {
    let value = atom();
    while (list[at] === 'AND') {
      at++;
      const next = atom();
      value = value && next;
    }
    return value;
  };
  const or = (): boolean => {
    let value = and();
    while (list[at] === 'OR') {
      at++;
      const next = and();
      value = value || next;
    }
    return value;
  };
  return list.length === 0 ? true : or();
}

function setPath(
  context: Context,
  object: string,
  out: Record<string, unknown>,
  record: SfRecord,
  path: string[],
) {
  const { org, soql } = context;
  const [head, ...rest] = path;
  if (head === undefined) return;
  if (rest.length === 0) {
    out[head] = resolve(context, object, record, [head]);
    return;
  }
  const relationship = org.relationship(object, head);
  if (!relationship) throw invalidField(soql, object, head);
  const parentId = record[relationship.idField];
  const parent =
    typeof parentId === 'string' ? org.table(relationship.target).get(parentId) : undefined;
  if (!parent) {
    resolve(context, relationship.target, undefined, rest); // still validates the column
    out[head] = null;
    return;
  }
  const nested = (out[head] as Record<string, unknown> | null | undefined) ?? {
    attributes: attributes(relationship.target, parent.Id),
  };
  out[head] = nested;
  setPath(context, relationship.target, nested, parent, rest);
}

/**
 * A date or dateTime field takes an unquoted literal (`CloseDate > 2024-01-01`,
 * `LastModifiedDate > 2024-01-01T00:00:00Z`); a quoted one is refused.
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_dateformats.htm
 */
function checkLiteral(context: Context, object: string, condition: Condition): void {
  const path = condition.field.split('.');
  let target = object;
  for (const step of path.slice(0, -1)) {
    target = context.org.relationship(target, step)?.target ?? target;
  }
  const name = path.at(-1) ?? '';
  const type = context.org.fields.get(target)?.get(name)?.type;
  const quoted = [condition.literalType].flat().includes('STRING');
  if ((type === 'date' || type === 'datetime') && quoted) {
    throw new SoqlError(
      'INVALID_FIELD',
      `\n${context.soql}\n^\nERROR at Row:1:Column:1\nvalue of filter criterion for field '${name}' must be of type ${type === 'date' ? 'date' : 'dateTime'} and should not be enclosed in quotes`,
    );
  }
}

/**
 * ORDER BY: each field ascending unless DESC; nulls first unless NULLS LAST (Salesforce's
 * default for ascending order), last by default when descending.
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_orderby.htm
 */
function sortRows(
  context: Context,
  object: string,
  rows: SfRecord[],
  orderBy: readonly { field?: string; order?: string; nulls?: string }[],
): SfRecord[] {
  if (orderBy.length === 0) return rows;
  const keyed = rows.map((record) => ({
    record,
    keys: orderBy.map((o) => resolve(context, object, record, (o.field ?? '').split('.'))),
  }));
  keyed.sort((a, b) => {
    for (const [i, o] of orderBy.entries()) {
      const [x, y] = [a.keys[i], b.keys[i]];
      const descending = o.order?.toUpperCase() === 'DESC';
      const nullsFirst = o.nulls ? o.nulls.toUpperCase() === 'FIRST' : !descending;
      if ((x ?? null) === null || (y ?? null) === null) {
        if ((x ?? null) === (y ?? null)) continue;
        return ((x ?? null) === null) === nullsFirst ? -1 : 1;
      }
      const n =
        typeof x === 'number' && typeof y === 'number'
          ? x - y
          : typeof x === 'boolean' && typeof y === 'boolean'
            ? Number(x) - Number(y)
            : String(x).localeCompare(String(y));
      if (n !== 0) return descending ? -n : n;
    }
    return 0;
  });
  return keyed.map((k) => k.record);
}

export function attributes(object: string, id: string, base = '/services/data/v59.0/sobjects') {
  return { type: object, url: `${base}/${object}/${id}` };
}

type ParsedQuery = ReturnType<typeof parseQuery>;
type SelectFields = NonNullable<ParsedQuery['fields']>;

/** A parent-to-child subquery of the SELECT list: its relationship and its own query. */
interface Subquery {
  name: string;
  object: string;
  idField: string;
  query: ParsedQuery;
}

/**
 * The rows of `object` in `records` that match the query, sorted, limited and shaped: its
 * columns (parent fields as nested records) and each subquery's children. A subquery's result
 * is `null` when no child matches, otherwise a query result of its own (`totalSize`, `done`,
 * `records`), as the REST API nests it.
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_relationships_query_results.htm
 */
function select(
  context: Context,
  object: string,
  records: Iterable<SfRecord>,
  query: ParsedQuery,
): SfRecord[] {
  const { org, soql } = context;
  const columns: string[][] = [];
  const subqueries: Subquery[] = [];
  for (const f of (query.fields ?? []) as SelectFields) {
    if (f.type === 'Field') columns.push([f.field]);
    else if (f.type === 'FieldRelationship') columns.push([...f.relationships, f.field]);
    else if (f.type === 'FieldSubquery') {
      const name = f.subquery.relationshipName;
      const child = org.childRelationship(object, name);
      if (!child) {
        throw new SoqlError(
          'INVALID_TYPE',
          `\n${soql}\n^\nERROR at Row:1:Column:1\nDidn't understand relationship '${name}' in FROM part of query call. If you are attempting to use a custom relationship, be sure to append the '__r' after the custom relationship name. Please reference your WSDL or the describe call for the appropriate names.`,
        );
      }
      subqueries.push({
        name,
        object: child.target,
        idField: child.idField,
        query: f.subquery as ParsedQuery,
      });
    } else if (isCount(f)) continue;
    else throw new SoqlError('MALFORMED_QUERY', `unsupported field ${f.type}`);
  }
  // Validate columns in order, so the first bad one is named (as Salesforce does).
  for (const column of columns) resolve(context, object, undefined, column);
  const where = tokens(query.where as WhereNode | undefined);
  for (const token of where)
    if (typeof token === 'object') checkLiteral(context, object, token.condition);
  const matching = [...records].filter((record) =>
    evaluate(where, (c) => test(resolve(context, object, record, c.field.split('.')), c)),
  );
  const orderBy = [query.orderBy ?? []].flat() as {
    field?: string;
    order?: string;
    nulls?: string;
  }[];
  const sorted = sortRows(context, object, matching, orderBy);
  return sorted.slice(0, query.limit ?? sorted.length).map((record) => {
    const out: Record<string, unknown> = { attributes: attributes(object, record.Id) };
    for (const column of columns) setPath(context, object, out, record, column);
    for (const sub of subqueries) {
      const children = [...org.table(sub.object).values()].filter(
        (child) =>
          child[sub.idField] === record.Id &&
          child.IsDeleted !== true &&
          !hiddenBySharing(org, sub.object, child),
      );
      const rows = select(context, sub.object, children, sub.query);
      out[sub.name] =
        rows.length === 0 ? null : { totalSize: rows.length, done: true, records: rows };
    }
    return out as SfRecord;
  });
}

/** `COUNT()` without a field: the query answers how many rows match (see `isCountQuery`). */
function isCount(field: SelectFields[number]): boolean {
  return (
    field.type === 'FieldFunctionExpression' &&
    field.functionName.toUpperCase() === 'COUNT' &&
    (field.parameters ?? []).length === 0
  );
}

/**
 * `SELECT COUNT() FROM ...`: answered with the number of matching rows in `totalSize` and no
 * records.
 * https://developer.salesforce.com/docs/atlas.en-us.soql_sosl.meta/soql_sosl/sforce_api_calls_soql_select_count.htm
 */
export function isCountQuery(soql: string): boolean {
  return /^\s*SELECT\s+COUNT\(\s*\)\s+FROM\s/i.test(soql);
}

/**
 * Runs `soql`. Records in the Recycle Bin (`IsDeleted`) are left out unless `all` (queryAll).
 */
export function runSoql(org: Org, soql: string, tooling = false, all = false): SfRecord[] {
  const context: Context = { org, soql, tooling };
  let parsed: ParsedQuery;
  try {
    parsed = parseQuery(soql);
  } catch (error) {
    throw new SoqlError('MALFORMED_QUERY', (error as Error).message);
  }
  const object = parsed.sObject ?? '';
  if (!org.records.has(object) || org.unreadableObjects.has(object)) {
    throw new SoqlError(
      'INVALID_TYPE',
      `\n${soql}\nsObject type '${object}' is not supported. If you are attempting to use a custom object, be sure to append the '__c' after the entity name.`,
    );
  }
  const live = [...org.table(object).values()].filter(
    (r) => (all || r.IsDeleted !== true) && !hiddenBySharing(org, object, r),
  );
  return select(context, object, live, parsed);
}
