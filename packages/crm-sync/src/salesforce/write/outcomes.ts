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
  /** A skip step of the plan, or a step that cannot run (e.g. its linked record failed). */
  | { readonly step: PlanStep; readonly status: 'skipped'; readonly reason: string }
  | { readonly step: PlanStep; readonly status: 'failed'; readonly errors: readonly RecordError[] }
  /** Dry run: would be written. */
  | { readonly step: PlanStep; readonly status: 'planned' }
  /** Not reached: the run stopped (API limit, a Bulk API job running or failed) before this step. */
  | { readonly step: PlanStep; readonly status: 'pending' };

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
 * the run goes on and the next run tries it again), as the step's failed outcome; any other error
 * is thrown on.
 */
export function failure(step: PlanStep, error: unknown): StepOutcome {
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
