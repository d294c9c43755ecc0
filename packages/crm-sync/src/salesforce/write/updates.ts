/**
 * The update steps of a plan: composite calls of 200 (or Bulk API 2.0 jobs), recorded in the
 * journal in flight before they are sent, so an interrupted run's updates are read back rather
 * than sent twice. A call the org's own code refuses whole is split (chunk-splits.ts).
 */
import { customFieldsOf } from '../../model/catalogue.js';
import { chunk } from '../../model/chunk.js';
import type { CrmObject, FieldValues } from '../../model/objects.js';
import { holdsValue } from '../../plan/stored-values.js';
import type { UpdateStep } from '../../plan/types.js';
import {
  COMPOSITE_BATCH_LIMIT,
  type RecordError,
  type RecordOutcome,
} from '../../rest/composite.js';
import type { BulkOptions } from '../bulk/options.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { readRecords } from '../read/reads.js';
import { inFlightKey, stepKey } from '../state/journal.js';
import { splitAllowance } from './budget.js';
import { updateInBulk } from './bulk-apply.js';
import { halves, refusedWhole } from './chunk-splits.js';
import type { RunState } from './outcomes.js';
import type { RefusedFields } from './refusals.js';
import { updateRecords } from './writes.js';

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

/** What sending a batch needs: the run's state, the API check, the calls a split may still make. */
type BatchRun = RunState & {
  readonly guard: () => Promise<void>;
  readonly splits: { left: number };
};

/**
 * One composite batch of updates, recorded in flight before it is sent and written after. The
 * records of an object the org's own code refused whole are sent again in halves (each call
 * checked against the API reserve) until the refusing ones are alone. A split that writes
 * records costs nothing against the chunk's split allowance, which bounds only the splits that
 * write nothing, so an org that refuses every record costs a few calls, not one per record.
 * Returns how many records this call wrote.
 */
async function updateBatch(
  connection: SalesforceConnection,
  batch: UpdateStep[],
  run: BatchRun,
): Promise<number> {
  const { journal, outcomes, refused } = run;
  await journal.record(Object.fromEntries(batch.map((s) => [inFlightKey(stepKey(s)), s.id])));
  const { results, omitted } = await updateWithoutRefused(connection, batch, refused);
  const errorsOf = (i: number) => {
    const outcome = results[i];
    return outcome?.ok ? undefined : (outcome?.errors ?? []);
  };
  const parts = run.splits.left >= 2 ? refusedWhole(batch, errorsOf) : [];
  const split = new Set(parts.flat());
  const written: Record<string, string> = {};
  for (const [i, step] of batch.entries()) {
    const outcome = results[i];
    if (split.has(step)) continue;
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
      outcomes.set(step, { step, status: 'failed', errors: errorsOf(i) ?? [] });
    }
  }
  await journal.record(written);
  for (const part of parts) {
    for (const half of halves(part)) {
      if (run.splits.left <= 0) {
        for (const step of half)
          outcomes.set(step, {
            step,
            status: 'failed',
            errors: errorsOf(batch.indexOf(step)) ?? [],
          });
        continue;
      }
      run.splits.left -= 1;
      await run.guard();
      // A half that wrote records gives back its call and its twin's: only a split whose halves
      // both refuse draws on the allowance, which a chunk with k refusing records does k-1 times.
      if ((await updateBatch(connection, half, run)) > 0) run.splits.left += 2;
    }
  }
  return Object.keys(written).length;
}

/** Sends the update steps not done yet, in Bulk API jobs or composite batches. */
export async function applyUpdates(
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
    await updateBatch(connection, batch, {
      ...state,
      splits: { left: splitAllowance(batch.length) },
    });
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
