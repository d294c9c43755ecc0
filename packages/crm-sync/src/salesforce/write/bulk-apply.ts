/**
 * The large parts of a plan through Bulk API 2.0 ingest jobs: the updates, and the creates, of
 * an object with at least `writeThreshold` of them in the plan (Salesforce recommends Bulk API
 * 2.0 from a few thousand records). Below the threshold the plan is written as before
 * (composite calls of 200, one create at a time). Every record gets the outcome composite
 * would give it; records refused for a reason the composite path handles (a locked row, a
 * field the user cannot see or edit) and records a failed job never reached are handed back
 * to that path. Fields describe shows the user cannot write are left out of a job first: a
 * column Salesforce does not know fails the whole job, not its records. The journal holds each
 * record's job id before its data is uploaded, so an interrupted run resumes its jobs and never
 * writes a record twice.
 */

import { registrableDomain } from '../../model/domain.js';
import type { CrmObject, FieldValues } from '../../model/objects.js';
import type { CreateStep, PlanStep, UpdateStep } from '../../plan/types.js';
import { escapeSoqlString, packTerms } from '../../rest/soql.js';
import { append, bulkJobKey, type IngestResult, type IngestRow, ingest } from '../bulk/ingest.js';
import { type BulkOptions, DEFAULT_WRITE_THRESHOLD } from '../bulk/options.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { businessOnly } from '../read/person-accounts.js';
import { queryUriBound } from '../read/query-uri.js';
import { queryAll } from '../read/reads.js';
import { type ApplyJournal, stepKey } from '../state/journal.js';
import { orgCodeReason } from './chunk-splits.js';
import { DUPLICATES, refusedOutcome, type StepOutcome } from './outcomes.js';
import { type RefusedFields, VALUE_REFUSALS } from './refusals.js';

export interface BulkRun {
  readonly journal: ApplyJournal;
  readonly outcomes: Map<PlanStep, StepOutcome>;
  /** The API-limit check, before each job. */
  readonly guard: () => Promise<void>;
  /** What describe says the user cannot write: left out of the jobs. */
  readonly refused: RefusedFields;
  readonly progress: (n: number) => void;
  readonly options: BulkOptions;
}

/**
 * Errors the smaller paths deal with better: retried (lock), written without the field, or
 * refused by the org's own code, which fails the whole chunk of 200 a job processes together:
 * composite calls split such a chunk, creates go one at a time (chunk-splits.ts).
 */
const HANDED_BACK = new Set([
  'UNABLE_TO_LOCK_ROW',
  'INVALID_FIELD',
  'INVALID_FIELD_FOR_INSERT_UPDATE',
  ...VALUE_REFUSALS,
]);
const handBack = (result: IngestResult | undefined) =>
  !result ||
  result.status === 'unprocessed' ||
  (result.status === 'failed' &&
    (result.errors.some((e) => HANDED_BACK.has(e.statusCode)) ||
      orgCodeReason(result.errors) !== undefined));

const duplicateRow = (result: IngestResult | undefined) =>
  result?.status === 'failed' && result.errors.some((e) => e.statusCode === DUPLICATES);

/**
 * Gives a step the outcome its job result says (failed, written, or already done by an
 * interrupted run's job); true when the record is written.
 */
function settle(
  run: BulkRun,
  step: PlanStep,
  result: IngestResult | undefined,
  id: string,
  resumedReason: string,
  omitted: readonly string[],
): boolean {
  if (result?.status === 'failed') run.outcomes.set(step, refusedOutcome(step, result.errors));
  if (result?.status !== 'written') return false;
  run.outcomes.set(
    step,
    result.resumed
      ? { step, status: 'already-done', id, reason: resumedReason }
      : { step, status: 'written', id, ...(omitted.length > 0 ? { omitted } : {}) },
  );
  return true;
}

/**
 * The step's fields without those the user cannot write (`omitted`), or undefined when none
 * is left: the one-record paths then report what the org says.
 */
async function writableFields(
  run: BulkRun,
  step: UpdateStep | CreateStep,
): Promise<{ fields: FieldValues; omitted: string[] } | undefined> {
  const names = Object.keys(step.fields);
  const mode = step.type === 'update' ? 'update' : 'create';
  const omitted = await run.refused.unwritable(step.object, mode, names);
  if (omitted.length === 0) return { fields: step.fields, omitted };
  if (omitted.length === names.length) return undefined;
  const fields = Object.fromEntries(
    Object.entries(step.fields).filter(([name]) => !omitted.includes(name)),
  );
  return { fields, omitted };
}

/** Which steps go to a job: those a journaled job holds, and those of objects at the threshold. */
function chosen<S extends UpdateStep | CreateStep>(steps: readonly S[], run: BulkRun): Set<S> {
  const threshold = run.options.writeThreshold ?? DEFAULT_WRITE_THRESHOLD;
  const picked = new Set<S>();
  const byObject = new Map<CrmObject, S[]>();
  for (const step of steps) {
    if (run.journal.get(bulkJobKey(stepKey(step))) !== undefined) picked.add(step);
    else append(byObject, step.object, step);
  }
  for (const list of byObject.values())
    if (list.length >= threshold) for (const step of list) picked.add(step);
  return picked;
}

/** Runs the chosen updates as jobs; returns the updates left for composite calls. */
export async function updateInBulk(
  connection: SalesforceConnection,
  steps: readonly UpdateStep[],
  run: BulkRun,
): Promise<UpdateStep[]> {
  const picked = chosen(steps, run);
  const left = steps.filter((s) => !picked.has(s));
  for (const object of new Set([...picked].map((s) => s.object))) {
    const list: { step: UpdateStep; fields: FieldValues; omitted: string[] }[] = [];
    for (const step of [...picked].filter((s) => s.object === object)) {
      const writable = await writableFields(run, step);
      if (writable) list.push({ step, ...writable });
      else left.push(step);
    }
    const results = await ingest(connection, {
      object,
      operation: 'update',
      rows: list.map(({ step, fields }) => ({ key: stepKey(step), id: step.id, fields })),
      journal: run.journal,
      beforeJob: run.guard,
      ...(run.options.polling ? { polling: run.options.polling } : {}),
    });
    const written: Record<string, string> = {};
    for (const { step, omitted } of list) {
      const result = results.get(stepKey(step));
      if (handBack(result)) left.push(step);
      else if (settle(run, step, result, step.id, 'written by an interrupted run', omitted))
        written[stepKey(step)] = step.id;
    }
    await run.journal.record(written);
    run.progress(list.filter(({ step }) => run.outcomes.has(step)).length);
  }
  return left;
}

/**
 * Runs the chosen creates as insert jobs, Accounts first so later creates can link to them;
 * each after the plan's duplicate check, made for many records at once. Lead creates that
 * should run assignment rules (`autoAssign`) stay one at a time: a Bulk API job runs them only
 * for a named rule. Created ids go to `createdIds`; steps without an outcome are left to the
 * one-at-a-time path.
 */
export async function createInBulk(
  connection: SalesforceConnection,
  steps: readonly CreateStep[],
  run: BulkRun & {
    readonly createdIds: Map<string, string>;
    readonly autoAssign: boolean;
    /** Duplicates go to the one-at-a-time path, which can say allowSave (a job cannot). */
    readonly allowSave?: boolean;
  },
): Promise<void> {
  const eligible = steps.filter(
    (s) => run.journal.get(stepKey(s)) === undefined && (s.object !== 'Lead' || !run.autoAssign),
  );
  const picked = chosen(eligible, run);
  for (const object of ['Account', 'Contact', 'Lead'] as const) {
    const list = [...picked].filter((s) => s.object === object);
    if (list.length === 0) continue;
    const rows: (IngestRow & { step: CreateStep; omitted: string[] })[] = [];
    const fresh: CreateStep[] = [];
    for (const step of list) {
      const writable = await writableFields(run, step);
      if (!writable) continue;
      const fields = { ...writable.fields };
      let linked = true;
      for (const [field, key] of Object.entries(step.links)) {
        const id = run.createdIds.get(key);
        if (id === undefined) linked = false;
        else fields[field] = id;
      }
      // A missing link is reported by the one-at-a-time path.
      if (!linked) continue;
      rows.push({ key: stepKey(step), fields, step, omitted: writable.omitted });
      if (run.journal.get(bulkJobKey(stepKey(step))) === undefined) fresh.push(step);
    }
    const existing = await findExistingMany(connection, fresh);
    const found: Record<string, string> = {};
    for (const [step, id] of existing) {
      found[stepKey(step)] = id;
      run.createdIds.set(step.idempotencyKey, id);
      run.outcomes.set(step, {
        step,
        status: 'already-done',
        id,
        reason: `a ${step.object} with this ${step.duplicateCheck.field} exists`,
      });
    }
    await run.journal.record(found);
    const toWrite = rows.filter((r) => !existing.has(r.step));
    const stepOf = new Map(toWrite.map((r) => [r.key, r.step]));
    const results = await ingest(connection, {
      object,
      operation: 'insert',
      rows: toWrite,
      journal: run.journal,
      beforeJob: run.guard,
      // A lost job may have created its records: the duplicate check finds them.
      findWritten: async (lost) => {
        const steps = lost.flatMap((r) => stepOf.get(r.key) ?? []);
        const found = await findExistingMany(connection, steps);
        return new Map([...found].map(([step, id]) => [stepKey(step), id]));
      },
      ...(run.options.polling ? { polling: run.options.polling } : {}),
    });
    const created: Record<string, string> = {};
    for (const { step, key, omitted } of toWrite) {
      const result = results.get(key);
      if (handBack(result) || (run.allowSave && duplicateRow(result))) continue;
      const id = result?.status === 'written' ? result.id : '';
      if (settle(run, step, result, id, 'created by an earlier run', omitted)) {
        created[key] = id;
        run.createdIds.set(step.idempotencyKey, id);
      }
    }
    await run.journal.record(created);
    run.progress(list.filter((s) => run.outcomes.has(s)).length);
  }
}

/**
 * The plan's duplicate check for many creates: `Email IN (...)`, and Websites narrowed with
 * LIKE then compared by registrable domain, as the one-at-a-time check does.
 */
async function findExistingMany(
  connection: SalesforceConnection,
  steps: readonly CreateStep[],
): Promise<Map<CreateStep, string>> {
  const found = new Map<CreateStep, string>();
  const groups = new Map<string, CreateStep[]>();
  for (const step of steps) {
    const group = `${step.duplicateCheck.object}.${step.duplicateCheck.field}`;
    append(groups, group, step);
  }
  for (const list of groups.values()) {
    const { object, field } = (list[0] as CreateStep).duplicateCheck;
    const match = field === 'Email' ? emailMatches : websiteMatches;
    await match(connection, object, list, found);
  }
  return found;
}

/**
 * The queries of the duplicate check of many creates: those of `object` whose `field` holds one
 * of `values` (a Website narrowed with LIKE), packed into as few as fit a GET URI;
 * `businessOnly` (` AND IsPersonAccount = false`) leaves person accounts out.
 */
export function duplicateCheckQueries(
  object: CrmObject,
  field: 'Email' | 'Website',
  values: readonly string[],
  businessOnly = '',
): string[] {
  if (field === 'Email') {
    const emails = [...new Set(values)].map(escapeSoqlString);
    const compose = (list: string) => `SELECT Id, Email FROM ${object} WHERE Email IN (${list})`;
    return packTerms(emails, ', ', compose, queryUriBound);
  }
  const likes = [...new Set(values)].map(
    (domain) => `Website LIKE ${escapeSoqlString(`%${domain.replace(/[%_]/g, '')}%`)}`,
  );
  const compose = (conditions: string) =>
    `SELECT Id, Website FROM ${object} WHERE ${businessOnly ? `(${conditions})${businessOnly}` : conditions}`;
  return packTerms(likes, ' OR ', compose, queryUriBound);
}

async function emailMatches(
  connection: SalesforceConnection,
  object: CrmObject,
  steps: readonly CreateStep[],
  found: Map<CreateStep, string>,
): Promise<void> {
  const ids = new Map<string, string>();
  const emails = steps.map((s) => s.duplicateCheck.value);
  for (const soql of duplicateCheckQueries(object, 'Email', emails)) {
    const rows = await queryAll<{ Id: string; Email: string | null }>(connection, soql);
    for (const r of rows) ids.set((r.Email ?? '').toLowerCase(), r.Id);
  }
  for (const step of steps) {
    const id = ids.get(step.duplicateCheck.value.toLowerCase());
    if (id !== undefined) found.set(step, id);
  }
}

async function websiteMatches(
  connection: SalesforceConnection,
  object: CrmObject,
  steps: readonly CreateStep[],
  found: Map<CreateStep, string>,
): Promise<void> {
  const ids = new Map<string, string>();
  const domains = steps.map((s) => s.duplicateCheck.value);
  const business = await businessOnly(connection);
  for (const soql of duplicateCheckQueries(object, 'Website', domains, business)) {
    const rows = await queryAll<{ Id: string; Website: string | null }>(connection, soql);
    for (const r of rows) {
      const domain = r.Website ? registrableDomain(r.Website) : undefined;
      if (domain && !ids.has(domain)) ids.set(domain, r.Id);
    }
  }
  for (const step of steps) {
    const id = ids.get(step.duplicateCheck.value);
    if (id !== undefined) found.set(step, id);
  }
}
