/**
 * Executes a plan of the core's `planSync`: updates in composite calls of 200, creates (after a
 * duplicate check, so a re-run never creates a second record), feed posts. Results come back
 * step by step. Before the org's daily API limit the run stops cleanly, with what is left
 * marked pending; a journal makes the next run resume where this one stopped.
 */
import {
  COMPOSITE_BATCH_LIMIT,
  type CreateStep,
  type CrmObject,
  chunk,
  crmObjects,
  customFieldsOf,
  escapeSoqlString,
  type FeedPostStep,
  type FieldValues,
  holdsValue,
  type PlanStep,
  type RecordError,
  type RecordOutcome,
  registrableDomain,
  type SyncPlan,
  type UpdateStep,
} from '../index.js';
import { defaultReserve } from './budget.js';
import { createInBulk, updateInBulk } from './bulk-apply.js';
import { BulkJobFailed, BulkJobTimeout } from './bulk-jobs.js';
import type { BulkOptions } from './bulk-options.js';
import type { SalesforceConnection } from './connection.js';
import { type ApiUsage, SalesforceApiLimitError, SalesforceError } from './errors.js';
import { type ApplyJournal, inFlightKey, memoryJournal, stepKey } from './journal.js';
import { fieldsFor, queryAll, readRecords } from './reads.js';
import { RefusedFields } from './refusals.js';
import { createRecord, postFeedItem, updateRecords } from './writes.js';

/** What became of one plan step when the plan was applied. */
export type StepOutcome =
  /**
   * Written now (`id`: the record updated or created, or the feed item). `omitted`: fields left
   * out because the org refused them (`INVALID_FIELD`: hidden or missing;
   * `INVALID_FIELD_FOR_INSERT_UPDATE`: read-only).
   */
  | {
      readonly step: PlanStep;
      readonly status: 'written';
      readonly id: string;
      readonly omitted?: readonly string[];
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
  const steps = plan.steps.map((step) => withoutFields(step, omit));
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
    if (options.bulk !== false) {
      await createInBulk(
        connection,
        steps.filter((s): s is CreateStep => s.type === 'create'),
        {
          journal,
          outcomes,
          guard,
          refused,
          progress: (n) => progress('create', n),
          options: options.bulk ?? {},
          createdIds,
          autoAssign: options.autoAssign !== false,
        },
      );
    }
    for (const step of steps) {
      if (step.type !== 'create' || outcomes.has(step)) continue;
      await guard();
      outcomes.set(
        step,
        await applyCreate(connection, step, { journal, createdIds, outcomes, refused }, options),
      );
      progress('create', 1);
    }
    for (const step of steps) {
      if (step.type !== 'feedPost') continue;
      await guard();
      outcomes.set(step, await applyFeedPost(connection, step, journal, createdIds));
      progress('feedPost', 1);
    }
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

/** What the phases of one run share. */
interface RunState {
  readonly journal: ApplyJournal;
  readonly outcomes: Map<PlanStep, StepOutcome>;
  readonly refused: RefusedFields;
}

/**
 * The updates still to send: those a run already wrote are done, and those an interrupted run
 * sent are read back and sent again only when the record does not hold the values yet.
 */
async function updatesToSend(
  connection: SalesforceConnection,
  updates: readonly UpdateStep[],
  { journal, outcomes }: RunState,
): Promise<UpdateStep[]> {
  const todo: UpdateStep[] = [];
  const unsure: UpdateStep[] = [];
  for (const step of updates) {
    const key = stepKey(step);
    if (journal.get(key) !== undefined) {
      outcomes.set(step, {
        step,
        status: 'already-done',
        id: step.id,
        reason: 'written by an earlier run',
      });
    } else if (journal.get(inFlightKey(key)) !== undefined) {
      unsure.push(step);
    } else {
      todo.push(step);
    }
  }
  // Sent by a run that was interrupted before the answer: read the records and send only those
  // that do not hold the values yet, so no record is written twice.
  const confirmed = await alreadyHolding(connection, unsure);
  for (const step of unsure) {
    if (confirmed.has(step)) {
      outcomes.set(step, {
        step,
        status: 'already-done',
        id: step.id,
        reason: 'written by an interrupted run',
      });
    } else {
      todo.push(step);
    }
  }
  await journal.record(Object.fromEntries([...confirmed].map((s) => [stepKey(s), s.id])));
  return todo;
}

/** One composite batch of updates, recorded in flight before it is sent and written after. */
async function updateBatch(
  connection: SalesforceConnection,
  batch: UpdateStep[],
  { journal, outcomes, refused }: RunState,
): Promise<void> {
  await journal.record(Object.fromEntries(batch.map((s) => [inFlightKey(stepKey(s)), s.id])));
  const { results, omitted } = await updateWithoutRefused(connection, batch, refused);
  const written: Record<string, string> = {};
  for (const [i, step] of batch.entries()) {
    const outcome = results[i];
    if (outcome?.ok) {
      written[stepKey(step)] = step.id;
      const left = omitted[i] ?? [];
      outcomes.set(step, {
        step,
        status: 'written',
        id: step.id,
        ...(left.length > 0 ? { omitted: left } : {}),
      });
    } else {
      outcomes.set(step, {
        step,
        status: 'failed',
        errors: outcome && !outcome.ok ? outcome.errors : [],
      });
    }
  }
  await journal.record(written);
}

async function applyUpdates(
  connection: SalesforceConnection,
  updates: readonly UpdateStep[],
  state: RunState & { readonly guard: () => Promise<void>; readonly bulk: BulkOptions | false },
  progress: (n: number) => void,
): Promise<void> {
  const { journal, outcomes, guard, refused, bulk } = state;
  let todo = await updatesToSend(connection, updates, state);
  progress(updates.length - todo.length);
  if (bulk !== false) {
    todo = await updateInBulk(connection, todo, {
      journal,
      outcomes,
      guard,
      refused,
      progress,
      options: bulk,
    });
  }
  for (const batch of chunk(todo, COMPOSITE_BATCH_LIMIT)) {
    await guard();
    await updateBatch(connection, batch, state);
    progress(batch.length);
  }
}

const refusalOf = (error: RecordError) => ({
  code: error.statusCode,
  message: error.message,
  fields: error.fields,
});

/**
 * Updates `batch`, sending the records the org refused for some of their fields again without
 * those fields (until none is refused, at most once per field). Results in batch order, and the
 * fields left out of each.
 */
async function updateWithoutRefused(
  connection: SalesforceConnection,
  batch: readonly UpdateStep[],
  refused: RefusedFields,
): Promise<{ results: RecordOutcome[]; omitted: string[][] }> {
  const records = batch.map((step) => ({
    step,
    fields: { ...step.fields } as FieldValues,
    omitted: [] as string[],
    result: undefined as RecordOutcome | undefined,
  }));
  let todo = records;
  while (todo.length > 0) {
    const answers = await updateRecords(
      connection,
      todo.map((r) => ({ object: r.step.object, id: r.step.id, fields: r.fields })),
    );
    const again: typeof records = [];
    for (const [n, record] of todo.entries()) {
      const answer = answers[n];
      record.result = answer;
      if (!answer || answer.ok) continue;
      const left = (
        await Promise.all(
          answer.errors.map((e) =>
            refused.of(record.step.object, 'update', refusalOf(e), record.fields),
          ),
        )
      ).flat();
      if (left.length === 0 || left.length === Object.keys(record.fields).length) continue;
      record.fields = Object.fromEntries(
        Object.entries(record.fields).filter(([name]) => !left.includes(name)),
      );
      record.omitted.push(...new Set(left));
      again.push(record);
    }
    todo = again;
  }
  return {
    results: records.map(
      (r) => r.result ?? { object: r.step.object, id: r.step.id, ok: false, errors: [] },
    ),
    omitted: records.map((r) => r.omitted),
  };
}

/** The steps whose record already holds every planned value. */
async function alreadyHolding(
  connection: SalesforceConnection,
  steps: readonly UpdateStep[],
): Promise<Set<UpdateStep>> {
  const holding = new Set<UpdateStep>();
  const byObject = new Map<CrmObject, UpdateStep[]>();
  for (const step of steps) {
    const list = byObject.get(step.object) ?? [];
    list.push(step);
    byObject.set(step.object, list);
  }
  for (const [object, list] of byObject) {
    const fields = [...new Set(list.flatMap((s) => Object.keys(s.fields)))];
    const { records } = await readRecords<Record<string, unknown> & { Id: string }>(
      connection,
      object,
      {
        fields,
        where: [{ field: 'Id', in: list.map((s) => s.id) }],
      },
    );
    const byId = new Map(records.map((r) => [r.Id, r]));
    for (const step of list) {
      const record = byId.get(step.id);
      // Compared as the org stores values (DateTimes to the second, numbers at their scale).
      const metadata = (f: string) => customFieldsOf(object).find((c) => c.apiName === f)?.metadata;
      if (
        record &&
        Object.entries(step.fields).every(([f, v]) => holdsValue(v, record[f], metadata(f)))
      )
        holding.add(step);
    }
  }
  return holding;
}

/** Finds the record an earlier run (or someone else) created for this step, if any. */
async function findExisting(
  connection: SalesforceConnection,
  step: CreateStep,
): Promise<string | undefined> {
  const { object, field, value } = step.duplicateCheck;
  if (field === 'Email') {
    const rows = await queryAll<{ Id: string }>(
      connection,
      `SELECT Id FROM ${object} WHERE Email = ${escapeSoqlString(value)} LIMIT 2`,
    );
    return rows[0]?.Id;
  }
  // Websites are stored as URLs: narrow with LIKE, then compare registrable domains exactly.
  const rows = await queryAll<{ Id: string; Website: string | null }>(
    connection,
    `SELECT Id, Website FROM ${object} WHERE Website LIKE ${escapeSoqlString(`%${value.replace(/[%_]/g, '')}%`)}`,
  );
  return rows.find((r) => r.Website && registrableDomain(r.Website) === value)?.Id;
}

async function applyCreate(
  connection: SalesforceConnection,
  step: CreateStep,
  {
    journal,
    createdIds,
    outcomes,
    refused,
  }: RunState & { readonly createdIds: Map<string, string> },
  options: ApplyOptions,
): Promise<StepOutcome> {
  const key = stepKey(step);
  const journaled = journal.get(key);
  if (journaled !== undefined) {
    createdIds.set(step.idempotencyKey, journaled);
    return { step, status: 'already-done', id: journaled, reason: 'created by an earlier run' };
  }
  let fields: Record<string, FieldValues[string]> = { ...step.fields };
  for (const [field, linkKey] of Object.entries(step.links)) {
    const linked = createdIds.get(linkKey);
    if (linked === undefined) {
      const failedLink = [...outcomes.values()].some(
        (o) =>
          o.step.type === 'create' && o.step.idempotencyKey === linkKey && o.status === 'failed',
      );
      return {
        step,
        status: 'skipped',
        reason: `${field} links to ${linkKey}, which ${failedLink ? 'failed' : 'was not created'}`,
      };
    }
    fields[field] = linked;
  }
  try {
    const existing = await findExisting(connection, step);
    if (existing !== undefined) {
      await journal.record({ [key]: existing });
      createdIds.set(step.idempotencyKey, existing);
      return {
        step,
        status: 'already-done',
        id: existing,
        reason: `a ${step.object} with this ${step.duplicateCheck.field} exists`,
      };
    }
    const createOptions = { autoAssign: options.autoAssign !== false };
    const omitted: string[] = [];
    for (;;) {
      try {
        const { id } = await createRecord(connection, step.object, fields, createOptions);
        await journal.record({ [key]: id });
        createdIds.set(step.idempotencyKey, id);
        return { step, status: 'written', id, ...(omitted.length > 0 ? { omitted } : {}) };
      } catch (error) {
        // A field the user cannot see or edit is refused: write the rest.
        const left =
          error instanceof SalesforceError && error.code === 'request_failed'
            ? await refused.of(
                step.object,
                'create',
                { code: error.errorCode ?? '', message: error.message, fields: error.fields },
                fields,
              )
            : [];
        if (left.length === 0 || left.length === Object.keys(fields).length) throw error;
        fields = Object.fromEntries(Object.entries(fields).filter(([f]) => !left.includes(f)));
        omitted.push(...left);
      }
    }
  } catch (error) {
    return failure(step, error);
  }
}

function failure(step: PlanStep, error: unknown): StepOutcome {
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

async function applyFeedPost(
  connection: SalesforceConnection,
  step: FeedPostStep,
  journal: ApplyJournal,
  createdIds: Map<string, string>,
): Promise<StepOutcome> {
  const key = stepKey(step);
  const journaled = journal.get(key);
  if (journaled !== undefined)
    return { step, status: 'already-done', id: journaled, reason: 'posted by an earlier run' };
  const target: { object: CrmObject; id?: string; idempotencyKey?: string } = step.target;
  const subjectId = target.id ?? createdIds.get(target.idempotencyKey ?? '');
  if (subjectId === undefined) {
    return { step, status: 'skipped', reason: `the ${target.object} to post on was not created` };
  }
  try {
    const { id } = await postFeedItem(connection, subjectId, step.text);
    await journal.record({ [key]: id });
    return { step, status: 'written', id };
  } catch (error) {
    return failure(step, error);
  }
}
