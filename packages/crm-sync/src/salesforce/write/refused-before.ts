/**
 * Steps the org refused are not sent again while their data is unchanged: the journal remembers
 * each refusal (status code, digest of the data sent) and the next run skips the step with the
 * reason. Failures of the moment (a lock, a timeout, a lost connection, a 5xx) are never
 * remembered: the next run sends those again.
 */
import type { PlanStep } from '../../plan/types.js';
import { type ApplyJournal, refusalEntry, refusedBefore } from '../state/journal.js';
import { DUPLICATES, type StepOutcome } from './outcomes.js';
import { CANNOT_SEE_ALL } from './visibility.js';

/**
 * Codes of failures that pass: the record may be written as it is on the next try.
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
 */
const TRANSIENT = new Set([
  'NETWORK',
  'UNABLE_TO_LOCK_ROW',
  'SERVER_UNAVAILABLE',
  'REQUEST_LIMIT_EXCEEDED',
  'REQUEST_RUNNING_TOO_LONG',
  'UNKNOWN_EXCEPTION',
  'QUERY_TIMEOUT',
  'INVALID_SESSION_ID',
  // The sync's own refusal, sent nothing: it lifts when the user is given View All (visibility.ts).
  CANNOT_SEE_ALL,
]);

/** Whether a failure with this code may pass on its own (an HTTP status stands for its code). */
export function isTransient(statusCode: string): boolean {
  return TRANSIENT.has(statusCode) || /^\d+$/.test(statusCode);
}

/**
 * Gives each step the org refused before, with the same data, a skipped outcome naming the
 * refusal; the steps left to send. A duplicate is sent again when `allowSave` now overrides the
 * org's duplicate rules.
 */
export function holdRefused(
  steps: readonly PlanStep[],
  journal: ApplyJournal,
  outcomes: Map<PlanStep, StepOutcome>,
  allowSave: boolean,
): PlanStep[] {
  for (const step of steps) {
    if (step.type === 'skip') continue;
    const statusCode = refusedBefore(journal, step);
    if (statusCode === undefined) continue;
    if (allowSave && statusCode === DUPLICATES) continue;
    const message = `refused last run as ${statusCode}; data unchanged`;
    outcomes.set(step, {
      step,
      status: 'skipped',
      reason: message,
      refusal: { statusCode, message, earlierRun: true },
    });
  }
  return steps.filter((step) => !outcomes.has(step));
}

/** The code a step was refused with this run, if the refusal is one to remember. */
function refusedWith(outcome: StepOutcome): string | undefined {
  if (outcome.status === 'skipped' && outcome.refusal && !outcome.refusal.earlierRun)
    return outcome.refusal.statusCode;
  if (outcome.status !== 'failed') return undefined;
  const code = outcome.errors[0]?.statusCode;
  return code === undefined || outcome.errors.some((e) => isTransient(e.statusCode))
    ? undefined
    : code;
}

/** Records this run's refusals in the journal (one write), for `holdRefused` in the next run. */
export async function rememberRefusals(
  journal: ApplyJournal,
  outcomes: Iterable<StepOutcome>,
): Promise<void> {
  const entries: Record<string, string> = {};
  for (const outcome of outcomes) {
    const code = refusedWith(outcome);
    if (code === undefined) continue;
    const [key, value] = refusalEntry(outcome.step, code);
    entries[key] = value;
  }
  await journal.record(entries);
}
