/** A feed post step of a plan: on a record of the org or one created earlier in the run. */
import type { CrmObject } from '../../model/objects.js';
import type { FeedPostStep } from '../../plan/types.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { type ApplyJournal, stepKey } from '../state/journal.js';
import { failure, type StepOutcome } from './outcomes.js';
import { postFeedItem } from './writes.js';

/** Posts the step's text unless the journal says an earlier run did. */
export async function applyFeedPost(
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
