/**
 * A create step of a plan: after a duplicate check (so a re-run never creates a second record),
 * with the ids of records created earlier in the run filled into its links.
 */
import { registrableDomain } from '../../model/domain.js';
import type { FieldValues } from '../../model/objects.js';
import type { CreateStep } from '../../plan/types.js';
import { escapeSoqlString } from '../../rest/soql.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { SalesforceError } from '../errors.js';
import { businessOnly } from '../read/person-accounts.js';
import { queryAll } from '../read/reads.js';
import { stepKey } from '../state/journal.js';
import { sendUnlessMade } from './lost-answers.js';
import { failure, type RunState, type StepOutcome } from './outcomes.js';
import { type CreateOptions, createRecord } from './writes.js';

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
    `SELECT Id, Website FROM ${object} WHERE Website LIKE ${escapeSoqlString(`%${value.replace(/[%_]/g, '')}%`)}${await businessOnly(connection)}`,
  );
  return rows.find((r) => r.Website && registrableDomain(r.Website) === value)?.Id;
}

/** Creates the step's record unless the journal or the org already has it. */
export async function applyCreate(
  connection: SalesforceConnection,
  step: CreateStep,
  {
    journal,
    createdIds,
    outcomes,
    refused,
  }: RunState & { readonly createdIds: Map<string, string> },
  createOptions: CreateOptions,
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
      const link = [...outcomes.values()].find(
        (o) => o.step.type === 'create' && o.step.idempotencyKey === linkKey,
      );
      const why =
        link?.status === 'failed'
          ? 'failed'
          : link?.status === 'skipped' && link.refusal
            ? `the org refused (${link.refusal.statusCode})`
            : 'was not created';
      return { step, status: 'skipped', reason: `${field} links to ${linkKey}, which ${why}` };
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
    const omitted: string[] = [];
    for (;;) {
      try {
        // A create whose answer was lost is looked for, as after a crash, before it is resent.
        const id = await sendUnlessMade(
          async () => (await createRecord(connection, step.object, fields, createOptions)).id,
          () => findExisting(connection, step),
        );
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
