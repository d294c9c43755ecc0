/**
 * Batch updates through `PATCH /composite/sobjects` (docs/crm-sync/applying.md): bodies of at most
 * 200 records with `allOrNone: false`, and per-record results paired back with their records.
 * Salesforce processes a body in chunks, runs of records of one type, and refuses a body of more
 * than 10: records are grouped by object before they are cut into bodies.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections_update.htm
 */
import { chunk } from '../model/chunk.js';
import { CrmSyncError } from '../model/errors.js';
import {
  type CrmObject,
  crmObjects,
  type FieldValue,
  type FieldValues,
  isCrmObject,
} from '../model/objects.js';

/** The most records one composite collection call takes. */
export const COMPOSITE_BATCH_LIMIT = 200;

/** One record to update: its object, id and the fields to write. */
export interface RecordUpdate {
  readonly object: CrmObject;
  readonly id: string;
  readonly fields: FieldValues;
}

/** A record as the sObject Collections resource takes it. */
export interface CompositeRecord {
  readonly attributes: { readonly type: CrmObject };
  readonly id: string;
  readonly [field: string]: FieldValue | { readonly type: CrmObject };
}

/** The body of one `PATCH /composite/sobjects` call: at most 200 records, `allOrNone: false`. */
export interface CompositeUpdateBody {
  readonly allOrNone: false;
  readonly records: readonly CompositeRecord[];
}

/** A Salesforce record id: 15 or 18 letters and digits. */
const RECORD_ID = /^[a-zA-Z0-9]{15}(?:[a-zA-Z0-9]{3})?$/;

/** `records` grouped by object in the order of `crmObjects`, in their order within each object. */
export function groupedByObject<T extends { readonly object: CrmObject }>(
  records: readonly T[],
): T[] {
  return crmObjects.flatMap((object) => records.filter((r) => r.object === object));
}

/**
 * Request bodies for `PATCH /composite/sobjects`, at most 200 records each, grouped by object
 * (at most 3 chunks a body); within an object, in order.
 * Throws `CrmSyncError` (`invalid_record`) naming every record without a valid id, of an object
 * other than Account/Contact/Lead, or with a field named `id`/`attributes`.
 */
export function toCompositeUpdates(records: readonly RecordUpdate[]): CompositeUpdateBody[] {
  const problems: string[] = [];
  records.forEach((record, index) => {
    const at = `records[${index}]`;
    if (!isCrmObject(record.object)) {
      problems.push(
        `${at}.object: ${JSON.stringify(record.object)} is not Account, Contact or Lead`,
      );
    }
    if (typeof record.id !== 'string' || !RECORD_ID.test(record.id)) {
      problems.push(
        `${at}.id: ${JSON.stringify(record.id)} is not a 15- or 18-character record id`,
      );
    }
    for (const name of Object.keys(record.fields ?? {})) {
      if (['id', 'attributes'].includes(name.toLowerCase())) {
        problems.push(`${at}.fields.${name}: reserved in a composite record`);
      }
    }
  });
  if (problems.length > 0) {
    throw new CrmSyncError('invalid_record', 'Records cannot be sent as a batch update', problems);
  }
  return chunk(groupedByObject(records), COMPOSITE_BATCH_LIMIT).map((batch) => ({
    allOrNone: false as const,
    records: batch.map(({ object, id, fields }) => ({
      attributes: { type: object },
      id,
      ...fields,
    })),
  }));
}

/** One per-record entry of a composite response (`SaveResult`). */
export interface CompositeSaveResult {
  readonly id?: string | null;
  readonly success: boolean;
  readonly errors: readonly {
    readonly statusCode: string;
    readonly message: string;
    readonly fields?: readonly string[];
  }[];
}

/** A request-level error: the whole call was refused (e.g. `EXCEEDED_ID_LIMIT`). */
export interface CompositeRequestError {
  readonly errorCode: string;
  readonly message: string;
}

/** Why Salesforce refused a record. */
export interface RecordError {
  /** Salesforce's `statusCode` (per record) or `errorCode` (whole request). */
  readonly statusCode: string;
  readonly message: string;
  readonly fields: readonly string[];
}

/** What became of one record of a composite update: written, or refused with its errors. */
export type RecordOutcome =
  | { readonly object: CrmObject; readonly id: string; readonly ok: true }
  | {
      readonly object: CrmObject;
      readonly id: string;
      readonly ok: false;
      readonly errors: readonly RecordError[];
    };

function isRequestError(entry: unknown): entry is CompositeRequestError {
  return typeof entry === 'object' && entry !== null && 'errorCode' in entry;
}

/**
 * Pairs each per-record result with the record it belongs to, in request order: `responses[i]`
 * is the parsed JSON answer to `bodies[i]`. A request-level error fails every record of its body.
 * Throws `CrmSyncError` (`invalid_response`) when a response cannot be paired (wrong length).
 */
export function collectCompositeResults(
  bodies: readonly CompositeUpdateBody[],
  responses: readonly (readonly (CompositeSaveResult | CompositeRequestError)[])[],
): RecordOutcome[] {
  if (responses.length !== bodies.length) {
    throw new CrmSyncError(
      'invalid_response',
      `Expected ${bodies.length} composite responses, got ${responses.length}`,
    );
  }
  return bodies.flatMap((body, b) => {
    const response = responses[b] ?? [];
    const refused = response.find(isRequestError);
    if (refused === undefined && response.length !== body.records.length) {
      throw new CrmSyncError(
        'invalid_response',
        `Composite response ${b} has ${response.length} results for ${body.records.length} records`,
      );
    }
    return body.records.map((record, r): RecordOutcome => {
      const base = { object: record.attributes.type, id: record.id };
      if (refused !== undefined) {
        return {
          ...base,
          ok: false,
          errors: [{ statusCode: refused.errorCode, message: refused.message, fields: [] }],
        };
      }
      const result = response[r] as CompositeSaveResult;
      if (result.success) return { ...base, ok: true };
      return {
        ...base,
        ok: false,
        errors: result.errors.map((e) => ({
          statusCode: e.statusCode,
          message: e.message,
          fields: e.fields ?? [],
        })),
      };
    });
  });
}
