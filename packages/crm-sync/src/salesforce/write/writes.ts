/**
 * Writes (docs/crm-sync/applying.md): create, update one, batch update through composite
 * collections (at most 200 records per call, `allOrNone: false`, results per record), and Chatter
 * feed posts. There is no delete: records are never deleted (docs/crm-sync/planning.md, "The
 * plan").
 */

import type { CrmObject, FieldValues } from '../../model/objects.js';
import {
  type CompositeRequestError,
  type CompositeSaveResult,
  type CompositeUpdateBody,
  collectCompositeResults,
  groupedByObject,
  type RecordOutcome,
  type RecordUpdate,
  toCompositeUpdates,
} from '../../rest/composite.js';
import { paragraphSegments } from '../../rest/feed-body.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { SalesforceError } from '../errors.js';

/** Whether a create runs the org's assignment rules. */
export interface CreateOptions {
  /**
   * Let the org's active assignment rules (Lead, Account) run on create (default true,
   * Salesforce's own default). Set false to keep the owner you set.
   */
  readonly autoAssign?: boolean;
  /**
   * Save a record the org's duplicate rules match when their action is to alert (default
   * false: the org refuses it with `DUPLICATES_DETECTED` and the records it matched).
   * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_duplicaterules.htm
   */
  readonly allowSave?: boolean;
}

/**
 * The Assignment Rule header. REST runs the org's active assignment rules on every create and
 * update of a Lead or Account unless it says FALSE: said on every write, so an update never
 * hands a record to another owner.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/headers_autoassign.htm
 */
const assignmentRules = (run: boolean) => ({ 'sforce-auto-assign': run ? 'TRUE' : 'FALSE' });

/** `POST /sobjects/<object>`: the new record's id. */
export async function createRecord(
  connection: SalesforceConnection,
  object: CrmObject,
  fields: FieldValues,
  options: CreateOptions = {},
): Promise<{ id: string }> {
  const { body } = await connection.rest<{ id: string }>('POST', `/sobjects/${object}`, {
    body: fields,
    operation: 'create',
    headers: {
      ...assignmentRules(options.autoAssign !== false),
      ...(options.allowSave ? { 'sforce-duplicate-rule-header': 'allowSave=true' } : {}),
    },
  });
  return { id: body.id };
}

/** `PATCH /sobjects/<object>/<id>`, without running assignment rules. */
export async function updateRecord(
  connection: SalesforceConnection,
  object: CrmObject,
  id: string,
  fields: FieldValues,
): Promise<void> {
  await connection.rest('PATCH', `/sobjects/${object}/${encodeURIComponent(id)}`, {
    body: fields,
    operation: 'update',
    headers: assignmentRules(false),
  });
}

type CompositeResponse = readonly (CompositeSaveResult | CompositeRequestError)[];

/**
 * A refused request (4xx with Salesforce's error array), or one whose connection failed after
 * the connection's retries, fails its records (set aside for the next run), not the whole run.
 */
function refusal(error: unknown): CompositeResponse {
  if (error instanceof SalesforceError && error.code === 'network') {
    return [{ errorCode: 'NETWORK', message: error.message }];
  }
  if (
    error instanceof SalesforceError &&
    error.code === 'request_failed' &&
    Array.isArray(error.body) &&
    error.body.length > 0
  ) {
    return error.body as CompositeRequestError[];
  }
  throw error;
}

/** Progress callback of `updateRecords`. */
export interface UpdateRecordsOptions {
  /** Called after each composite call with the outcomes so far, in the order sent. */
  readonly onBatch?: (outcomes: readonly RecordOutcome[]) => void;
}

/**
 * `PATCH /composite/sobjects` in calls of at most 200 records grouped by object, `allOrNone:
 * false`, without running assignment rules. One outcome per record, in input order; records that failed with `UNABLE_TO_LOCK_ROW` are sent again
 * (with backoff, up to the retry ceiling). A call refused as a whole fails its records with the
 * request's error code; auth and API-limit errors are thrown.
 */
export async function updateRecords(
  connection: SalesforceConnection,
  updates: readonly RecordUpdate[],
  options: UpdateRecordsOptions = {},
): Promise<RecordOutcome[]> {
  const send = async (body: CompositeUpdateBody) => {
    const response = await connection
      .rest<CompositeResponse>('PATCH', '/composite/sobjects', {
        body,
        operation: 'composite',
        headers: assignmentRules(false),
      })
      .then((r) => r.body, refusal);
    return collectCompositeResults([body], [response]);
  };
  // Sent grouped by object (a call of more than 10 runs of one type is refused), answered in
  // input order.
  const sent = groupedByObject(updates.map((update, index) => ({ ...update, index })));
  const outcomes: RecordOutcome[] = [];
  for (const body of toCompositeUpdates(sent)) {
    let batch = await send(body);
    for (let retry = 0; retry < connection.retryPolicy.maxRetries; retry++) {
      const locked = new Set(
        batch
          .filter((o) => !o.ok && o.errors.some((e) => e.statusCode === 'UNABLE_TO_LOCK_ROW'))
          .map((o) => o.id),
      );
      if (locked.size === 0) break;
      await connection.backoff(retry);
      // A subset of a checked body of at most 200: sent as it is.
      const again = await send({ ...body, records: body.records.filter((r) => locked.has(r.id)) });
      const retried = new Map(again.map((o) => [o.id, o]));
      batch = batch.map((o) => retried.get(o.id) ?? o);
    }
    outcomes.push(...batch);
    options.onBatch?.(outcomes);
  }
  const inOrder: RecordOutcome[] = [];
  sent.forEach(({ index }, k) => {
    inOrder[index] = outcomes[k] as RecordOutcome;
  });
  return inOrder;
}

/** `POST /chatter/feed-elements`: a post on a record's feed, a paragraph a line; its id. */
export async function postFeedItem(
  connection: SalesforceConnection,
  subjectId: string,
  text: string,
): Promise<{ id: string }> {
  const { body } = await connection.rest<{ id: string }>('POST', '/chatter/feed-elements', {
    body: {
      feedElementType: 'FeedItem',
      subjectId,
      body: { messageSegments: paragraphSegments(text) },
    },
    operation: 'feed',
  });
  return { id: body.id };
}
