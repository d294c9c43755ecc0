/**
 * Executes a plan of the core's `planSync`: updates in composite calls of 200, creates (after a
 * duplicate check, so a re-run never creates a second record), feed posts. Results come back
 * step by step. Before the org's daily API limit the run stops cleanly, with what is left
 * marked pending; a journal makes the next run resume where this one stopped.
 */

import { type CrmObject, crmObjects } from '../../model/objects.js';
import type { CreateStep, FeedPostStep, PlanStep, SyncPlan, UpdateStep } from '../../plan/types.js';
import { BulkJobFailed, BulkJobTimeout } from '../bulk/jobs.js';
import type { BulkOptions } from '../bulk/options.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { type ApiUsage, SalesforceApiLimitError, SalesforceError } from '../errors.js';
import { fieldsFor } from '../read/reads.js';
import { type ApplyJournal, memoryJournal, stepKey } from '../state/journal.js';
import { defaultReserve } from './budget.js';
import { createInBulk } from './bulk-apply.js';
import {
  type CreateDefaultsByObject,
  checkCreateDefaults,
  withCreateDefaults,
} from './create-defaults.js';
import { applyCreate } from './creates.js';
import { applyFeedPosts } from './feed-posts.js';
import type { RunState, StepOutcome, StepStatus } from './outcomes.js';
import { RefusedFields } from './refusals.js';
import { applyUpdates } from './updates.js';
import { RecordVisibility } from './visibility.js';

export type { StepOutcome, StepStatus } from './outcomes.js';

/** How far `applyPlan` is: the phase and the steps done so far. */
export interface ApplyProgress {
  readonly phase: 'update' | 'create' | 'feedPost';
  /** Steps of all phases finished so far, and in all. */
  readonly done: number;
  readonly total: number;
}

/** How `applyPlan` writes: dry run, journal, Bulk API 2.0, API reserve, assignment rules. */
export interface ApplyOptions {
  /** Write nothing and make no call: every write step comes back `planned`. */
  readonly dryRun?: boolean;
  /** Called after each batch or step with the phase and the steps done so far. */
  readonly onProgress?: (progress: ApplyProgress) => void;
  /** Remembers finished steps; pass a `fileJournal` to resume an interrupted run. */
  readonly journal?: ApplyJournal;
  /**
   * Let the org's assignment rules run on create (default true); false sends
   * `Sforce-Auto-Assign: FALSE`. Updates never run them: they keep each record's owner.
   */
  readonly autoAssign?: boolean;
  /**
   * Stop when the org has this many API calls or fewer left today (default: 2% of the daily
   * allocation, at least 50), so other integrations keep working.
   */
  readonly apiReserve?: number;
  /**
   * The connection's `usage` was just read from `/limits` (by `checkBudget`): the first check
   * against the reserve uses it instead of asking again.
   */
  readonly usageFresh?: boolean;
  /**
   * Fields never to write, as `Object.Field` or `Field` (e.g. the fields the integration user
   * cannot see). A create or update the org still refuses with `INVALID_FIELD` (a field it
   * does not show the user) or `INVALID_FIELD_FOR_INSERT_UPDATE` (read-only through field-level
   * security) is sent again without the refused fields: those the error names, and those
   * describe shows as not createable/updateable.
   */
  readonly omitFields?: readonly string[];
  /**
   * Bulk API 2.0 for the updates and creates of an object with at least `writeThreshold`
   * (default 2,000) of them; `false` writes everything through composite calls and single
   * creates. See `BulkOptions`.
   */
  readonly bulk?: BulkOptions | false;
  /**
   * Per object, a record type and constant field values every record the run creates gets (a
   * value of the plan's own wins). Checked against describe before anything is written.
   */
  readonly createDefaults?: CreateDefaultsByObject;
}

/**
 * What `applyPlan` did: one outcome per plan step in plan order, their counts, and why it stopped
 * early, if it did.
 */
export interface ApplyResult {
  /** One outcome per plan step, in plan order. */
  readonly outcomes: readonly StepOutcome[];
  readonly counts: Readonly<Record<StepStatus, number>>;
  /**
   * Set when the run stopped before the end; `pending` steps are left for the next run: at the
   * org's API limit, when a Bulk API job was still running after the polling's `timeoutMs`, or
   * when Salesforce failed a job as a whole (`message` gives its `errorMessage`).
   */
  readonly stopped?: {
    readonly reason: 'api-limit' | 'bulk-job-timeout' | 'bulk-job-failed';
    readonly message: string;
    readonly usage: ApiUsage | undefined;
  };
  readonly dryRun: boolean;
}

class Stop extends Error {}

/** `omitFields` per object, lower-cased: parsed once for the whole plan. */
function omissions(omit: readonly string[]): Map<CrmObject, Set<string>> {
  return new Map(
    crmObjects.map((object) => [
      object,
      new Set(fieldsFor(object, omit).map((field) => field.toLowerCase())),
    ]),
  );
}

function withoutFields(step: PlanStep, omit: Map<CrmObject, Set<string>>): PlanStep {
  if (step.type !== 'update' && step.type !== 'create') return step;
  const names = omit.get(step.object);
  if (!names || names.size === 0) return step;
  const kept = Object.entries(step.fields).filter(([name]) => !names.has(name.toLowerCase()));
  return kept.length === Object.keys(step.fields).length
    ? step
    : { ...step, fields: Object.fromEntries(kept) };
}

/**
 * The create steps of objects the user sees every record of; the others are failed here with the
 * remedy (their duplicate check could not see the record they would duplicate). A create the
 * journal knows was made by an earlier run is left to its phase, which reports it done.
 */
async function seenCreates(
  connection: SalesforceConnection,
  steps: readonly PlanStep[],
  { outcomes, journal }: Pick<RunState, 'outcomes' | 'journal'>,
): Promise<CreateStep[]> {
  const creates = steps.filter((s): s is CreateStep => s.type === 'create');
  const unknown = creates.filter((step) => journal.get(stepKey(step)) === undefined);
  const refused = await new RecordVisibility(connection).refusals(unknown);
  for (const [step, error] of refused)
    outcomes.set(step, { step, status: 'failed', errors: [error] });
  return creates.filter((step) => !refused.has(step));
}

function limitMessage(usage: ApiUsage | undefined): string {
  const used = usage
    ? `${usage.used} of ${usage.max} API calls used in the last 24 hours`
    : 'API limit reached';
  return `Stopped before the org's daily API limit (${used}). Salesforce frees calls over a rolling 24 hours: run the same sync again in a few hours; finished steps are not written twice.`;
}

/**
 * Applies `plan` to the org; see `ApplyOptions`. A dry run needs no org (`undefined`: plans
 * offline). Auth errors are thrown; record errors are outcomes.
 */
export async function applyPlan(
  connection: SalesforceConnection | undefined,
  plan: SyncPlan,
  options: ApplyOptions = {},
): Promise<ApplyResult> {
  const journal = options.journal ?? memoryJournal();
  const outcomes = new Map<PlanStep, StepOutcome>();
  const omit = omissions(options.omitFields ?? []);
  const defaults = options.createDefaults ?? {};
  const steps = plan.steps.map((step) => withoutFields(withCreateDefaults(step, defaults), omit));
  const total = steps.filter((s) => s.type !== 'skip').length;
  let done = 0;
  const progress = (phase: ApplyProgress['phase'], n: number) => {
    done += n;
    options.onProgress?.({ phase, done, total });
  };
  for (const step of steps) {
    if (step.type === 'skip') outcomes.set(step, { step, status: 'skipped', reason: step.reason });
  }
  if (options.dryRun) {
    for (const step of steps)
      if (step.type !== 'skip') outcomes.set(step, { step, status: 'planned' });
    return result(steps, outcomes, true);
  }
  if (connection === undefined)
    throw new SalesforceError('invalid_options', 'Only a dry run applies a plan without an org');
  await checkCreateDefaults(connection, defaults);

  // Usage is read fresh once (a stored connection may carry yesterday's figure), then kept
  // current by the Sforce-Limit-Info header of every call.
  let checked = options.usageFresh === true;
  const guard = async () => {
    const usage = checked && connection.usage ? connection.usage : await connection.limits();
    checked = true;
    if (usage.max - usage.used <= (options.apiReserve ?? defaultReserve(usage))) throw new Stop();
  };
  const createdIds = new Map<string, string>(); // idempotency key -> record id
  const refused = new RefusedFields(connection);
  let stopped: ApplyResult['stopped'];
  try {
    await applyUpdates(
      connection,
      steps.filter((s): s is UpdateStep => s.type === 'update'),
      { journal, outcomes, guard, refused, bulk: options.bulk ?? {} },
      (n) => progress('update', n),
    );
    const creates = await seenCreates(connection, steps, { outcomes, journal });
    if (options.bulk !== false) {
      await createInBulk(connection, creates, {
        journal,
        outcomes,
        guard,
        refused,
        progress: (n) => progress('create', n),
        options: options.bulk ?? {},
        createdIds,
        autoAssign: options.autoAssign !== false,
      });
    }
    for (const step of steps) {
      if (step.type !== 'create' || outcomes.has(step)) continue;
      await guard();
      outcomes.set(
        step,
        await applyCreate(
          connection,
          step,
          { journal, createdIds, outcomes, refused },
          options.autoAssign !== false,
        ),
      );
      progress('create', 1);
    }
    await applyFeedPosts(
      connection,
      steps.filter((s): s is FeedPostStep => s.type === 'feedPost'),
      { journal, outcomes, createdIds, guard, progress: (n) => progress('feedPost', n) },
    );
  } catch (error) {
    if (error instanceof BulkJobTimeout) {
      stopped = { reason: 'bulk-job-timeout', message: error.message, usage: connection.usage };
    } else if (error instanceof BulkJobFailed) {
      stopped = { reason: 'bulk-job-failed', message: error.message, usage: connection.usage };
    } else if (error instanceof Stop || error instanceof SalesforceApiLimitError) {
      const concurrent = error instanceof SalesforceApiLimitError && error.limit === 'concurrent';
      stopped = {
        reason: 'api-limit',
        message: concurrent ? error.message : limitMessage(connection.usage),
        usage: connection.usage,
      };
    } else throw error;
  }
  for (const step of steps)
    if (!outcomes.has(step)) outcomes.set(step, { step, status: 'pending' });
  return result(steps, outcomes, false, stopped);
}

function result(
  steps: readonly PlanStep[],
  outcomes: Map<PlanStep, StepOutcome>,
  dryRun: boolean,
  stopped?: ApplyResult['stopped'],
): ApplyResult {
  const ordered = steps.map((s) => outcomes.get(s) as StepOutcome);
  const counts: Record<StepStatus, number> = {
    written: 0,
    'already-done': 0,
    skipped: 0,
    failed: 0,
    planned: 0,
    pending: 0,
  };
  for (const o of ordered) counts[o.status] += 1;
  return { outcomes: ordered, counts, dryRun, ...(stopped ? { stopped } : {}) };
}
