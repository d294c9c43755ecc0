/**
 * What applying a plan step can come to, and what the phases of one run (updates, creates, feed
 * posts) share.
 */
import type { PlanStep } from '../../plan/types.js';
import type { RecordError } from '../../rest/composite.js';
import { SalesforceError } from '../errors.js';
import type { ApplyJournal } from '../state/journal.js';
import type { FieldFit } from './fit-values.js';
import type { RefusedFields } from './refusals.js';

/** What became of one plan step when the plan was applied. */
export type StepOutcome =
  /**
   * Written now (`id`: the record updated or created, or the feed item). `omitted`: fields left
   * out because the org refused them (`INVALID_FIELD`: hidden or missing;
   * `INVALID_FIELD_FOR_INSERT_UPDATE`: read-only; a country or state the org does not take).
   * `fitted`: values cut or left out to fit their field as describe gives it.
   */
  | {
      readonly step: PlanStep;
      readonly status: 'written';
      readonly id: string;
      readonly omitted?: readonly string[];
      readonly fitted?: readonly FieldFit[];
    }
  /** Done by an earlier run (journal) or already in the org (duplicate check): not written again. */
  | {
      readonly step: PlanStep;
      readonly status: 'already-done';
      readonly id: string;
      readonly reason: string;
    }
  /**
   * A skip step of the plan, a step that cannot run (e.g. its linked record failed), a create the
   * org's duplicate rules refused, or a step not sent again because the org refused the same data
   * before (`refusal`: why, and whether it was an earlier run's refusal).
   */
  | {
      readonly step: PlanStep;
      readonly status: 'skipped';
      readonly reason: string;
      readonly refusal?: Refusal;
    }
  | { readonly step: PlanStep; readonly status: 'failed'; readonly errors: readonly RecordError[] }
  /** Dry run: would be written. */
  | { readonly step: PlanStep; readonly status: 'planned' }
  /** Not reached: the run stopped (API limit, a Bulk API job running or failed) before this step. */
  | { readonly step: PlanStep; readonly status: 'pending' };

/**
 * Why the org refused a step that is not a failure of the run: its duplicate rules matched
 * existing records (`DUPLICATES_DETECTED`, `matchedIds` when Salesforce gave them), or an earlier
 * run was refused the same data (`earlierRun`), which is not sent again until it changes.
 */
export interface Refusal {
  readonly statusCode: string;
  readonly message: string;
  readonly matchedIds?: readonly string[];
  readonly earlierRun?: boolean;
}

/**
 * The status of a step's outcome: `written`, `already-done`, `skipped`, `failed`, `planned` or
 * `pending`.
 */
export type StepStatus = StepOutcome['status'];

/** What the phases of one run share. */
export interface RunState {
  readonly journal: ApplyJournal;
  readonly outcomes: Map<PlanStep, StepOutcome>;
  readonly refused: RefusedFields;
}

/**
 * A record error of Salesforce, or a write whose connection failed after its retries (set aside:
 * the run goes on and the next run tries it again), as the step's failed outcome (a create the
 * org's duplicate rules refused: skipped, with its `Refusal`); any other error is thrown on.
 */
export function failure(step: PlanStep, error: unknown): StepOutcome {
  if (
    error instanceof SalesforceError &&
    error.code === 'request_failed' &&
    error.errorCode === DUPLICATES
  ) {
    return duplicate(step, error.message, matchedIds(error.body));
  }
  if (error instanceof SalesforceError && error.code === 'network') {
    return {
      step,
      status: 'failed',
      errors: [{ statusCode: 'NETWORK', message: error.message, fields: [] }],
    };
  }
  if (error instanceof SalesforceError && error.code === 'request_failed') {
    return {
      step,
      status: 'failed',
      errors: [
        {
          statusCode: error.errorCode ?? String(error.status),
          message: error.message,
          fields: error.fields,
        },
      ],
    };
  }
  throw error;
}

/** The status code of a create the org's duplicate rules refused. */
export const DUPLICATES = 'DUPLICATES_DETECTED';

/**
 * A create the org's duplicate rules refused: the org's verdict stands, so it is reported with
 * the records it matched and is not a failure of the run.
 */
function duplicate(step: PlanStep, message: string, ids: readonly string[]): StepOutcome {
  const matched = ids.length > 0 ? ` (${ids.join(', ')})` : '';
  return {
    step,
    status: 'skipped',
    reason: `the org's duplicate rules matched existing records${matched}`,
    refusal: { statusCode: DUPLICATES, message, ...(ids.length > 0 ? { matchedIds: ids } : {}) },
  };
}

/**
 * The ids of the records a `DUPLICATES_DETECTED` error matched: `duplicateResult.matchResults[]
 * .matchRecords[].record.Id` (DuplicateResult, MatchResult, MatchRecord of the API).
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_objects_duplicateresult.htm
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_objects_matchresult.htm
 */
function matchedIds(body: unknown): string[] {
  type Match = { matchRecords?: { record?: { Id?: unknown } }[] };
  type Entry = { duplicateResult?: { matchResults?: Match[] } };
  const entries = Array.isArray(body) ? (body as Entry[]) : [];
  const ids = entries.flatMap((e) =>
    (e?.duplicateResult?.matchResults ?? []).flatMap((m) =>
      (m?.matchRecords ?? []).map((r) => r?.record?.Id),
    ),
  );
  return [...new Set(ids.filter((id): id is string => typeof id === 'string'))];
}

/**
 * The outcome of a step whose record errors came back (a Bulk API 2.0 row): a duplicate when
 * the org's duplicate rules refused it (a failed-results row carries no matched ids), else failed.
 */
export function refusedOutcome(step: PlanStep, errors: readonly RecordError[]): StepOutcome {
  const dup = errors.find((e) => e.statusCode === DUPLICATES);
  return dup ? duplicate(step, dup.message, []) : { step, status: 'failed', errors };
}
