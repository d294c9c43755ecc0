/**
 * Executes a plan of the core's `planSync`: updates in composite calls of 200, creates (after a
 * duplicate check, so a re-run never creates a second record), feed posts. Results come back
 * step by step. Before the org's daily API limit the run stops cleanly, with what is left
 * marked pending; a journal makes the next run resume where this one stopped.
 */

import { type CrmObject, crmObjects } from '../../model/objects.js';
import { recordsById } from '../../plan/stored-values.js';
import type {
  CreateStep,
  CrmSnapshot,
  FeedPostStep,
  PlanStep,
  SyncPlan,
  UpdateStep,
} from '../../plan/types.js';
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
import { applyFeedPosts, ChatterLimitReached } from './feed-posts.js';
import { type FieldFit, fitSteps } from './fit-values.js';
import type { RunState, StepOutcome, StepStatus } from './outcomes.js';
import { RefusedFields } from './refusals.js';
import { holdRefused, rememberRefusals } from './refused-before.js';
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
   * The org's duplicate rules: `respect` (default) lets their verdict stand, a create they refuse
   * is reported as a duplicate with the records it matched (not a failure) and is not sent again
   * while its data is unchanged; `allowSave` sends `Sforce-Duplicate-Rule-Header: allowSave=true`
   * on creates, which saves records an alerting rule matched (a blocking rule still refuses).
   */
  readonly duplicateRules?: 'respect' | 'allowSave';
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
  /**
   * The CRM the plan was made from (`planSync`'s `crm`). An update's values are compared again
   * once fitted to the org's fields: a value the record already holds as fitted (text cut to a
   * field shorter than it) is not sent again, and an update left with nothing to send is skipped
   * as `unchanged`. Without it, such an update is sent on every run.
   */
  readonly crm?: CrmSnapshot;
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
   * when Salesforce failed a job as a whole (`message` gives its `errorMessage`), or when Chatter's
   * hourly limit refused a feed post (the posts left wait for the next run).
   */
  readonly stopped?: {
    readonly reason: 'api-limit' | 'bulk-job-timeout' | 'bulk-job-failed' | 'chatter-hourly-limit';
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
  const planned = plan.steps.map((step) => withoutFields(withCreateDefaults(step, defaults), omit));
  const allowSave = options.duplicateRules === 'allowSave';
  const creating = { autoAssign: options.autoAssign !== false, allowSave };
  let total = planned.filter((s) => s.type !== 'skip').length;
  let done = 0;
  const progress = (phase: ApplyProgress['phase'], n: number) => {
    done += n;
    options.onProgress?.({ phase, done, total });
  };
  for (const step of planned) {
    if (step.type === 'skip') outcomes.set(step, { step, status: 'skipped', reason: step.reason });
  }
  if (options.dryRun) {
    for (const step of planned)
      if (step.type !== 'skip') outcomes.set(step, { step, status: 'planned' });
    return result(planned, outcomes, true);
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
  // Values are fitted before the journal is asked, so a refusal is remembered, and recognised the
  // next run, by the data the org was sent.
  let all: PlanStep[] = planned;
  let fits = new Map<PlanStep, readonly FieldFit[]>();
  try {
    ({ steps: all, fits } = await fitted(planned, guard, refused, options.crm));
    const steps = holdRefused(all, journal, outcomes, allowSave);
    total = steps.filter((s) => s.type !== 'skip').length;
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
        ...creating,
      });
    }
    for (const step of steps) {
      if (step.type !== 'create' || outcomes.has(step)) continue;
      await guard();
      outcomes.set(
        step,
        await applyCreate(connection, step, { journal, createdIds, outcomes, refused }, creating),
      );
      progress('create', 1);
    }
    await applyFeedPosts(
      connection,
      steps.filter((s): s is FeedPostStep => s.type === 'feedPost'),
      { journal, outcomes, createdIds, guard, progress: (n) => progress('feedPost', n) },
    );
  } catch (error) {
    stopped = stopOf(error, connection.usage);
  }
  settle(all, outcomes, fits);
  await rememberRefusals(journal, outcomes.values());
  return result(all, outcomes, false, stopped);
}

/** Why the run stopped early, for an error that stops a run; any other error is thrown on. */
function stopOf(error: unknown, usage: ApiUsage | undefined): NonNullable<ApplyResult['stopped']> {
  if (error instanceof BulkJobTimeout)
    return { reason: 'bulk-job-timeout', message: error.message, usage };
  if (error instanceof ChatterLimitReached)
    return { reason: 'chatter-hourly-limit', message: error.message, usage };
  if (error instanceof BulkJobFailed)
    return { reason: 'bulk-job-failed', message: error.message, usage };
  if (error instanceof Stop || error instanceof SalesforceApiLimitError) {
    const concurrent = error instanceof SalesforceApiLimitError && error.limit === 'concurrent';
    return {
      reason: 'api-limit',
      message: concurrent ? error.message : limitMessage(usage),
      usage,
    };
  }
  throw error;
}

/** The steps with their values fitted to the org's fields (after a check of the API budget). */
async function fitted(
  steps: PlanStep[],
  guard: () => Promise<void>,
  refused: RefusedFields,
  crm: CrmSnapshot | undefined,
): Promise<{ steps: PlanStep[]; fits: Map<PlanStep, readonly FieldFit[]> }> {
  if (!steps.some((s) => s.type === 'create' || s.type === 'update'))
    return { steps, fits: new Map() };
  await guard();
  const records = crm ? recordsById(crm) : new Map();
  return fitSteps(
    steps,
    (object) => refused.described(object),
    (id) => records.get(id),
  );
}

/**
 * Steps the run did not reach are pending (a create fitting made a skip is skipped); a written
 * one says what was fitted to be written.
 */
function settle(
  steps: readonly PlanStep[],
  outcomes: Map<PlanStep, StepOutcome>,
  fits: ReadonlyMap<PlanStep, readonly FieldFit[]>,
): void {
  for (const step of steps) {
    const outcome = outcomes.get(step);
    const fitted = fits.get(step);
    if (step.type === 'skip' && !outcome)
      outcomes.set(step, { step, status: 'skipped', reason: step.reason });
    else if (!outcome) outcomes.set(step, { step, status: 'pending' });
    else if (outcome.status === 'written' && fitted) outcomes.set(step, { ...outcome, fitted });
  }
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
