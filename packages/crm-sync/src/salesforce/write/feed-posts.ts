/**
 * The feed post steps of a plan, each posted once across runs, crashes and lost answers. A post
 * carries a reference made from its step's idempotency key on its last line; before posting, the
 * org's FeedItems on the same records are read (by ParentId: a FeedItem's Body can be selected
 * but not filtered on) and a post whose reference is there is not sent again. Past Chatter's
 * hourly limit the posts left wait for the next run (`ChatterLimitReached`).
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_feeditem.htm
 */
import { createHash } from 'node:crypto';
import { chunk } from '../../model/chunk.js';
import type { FeedPostStep, PlanStep } from '../../plan/types.js';
import { escapeSoqlString } from '../../rest/soql.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { SalesforceError } from '../errors.js';
import { queryAll } from '../read/reads.js';
import { type ApplyJournal, stepKey } from '../state/journal.js';
import { sendUnlessMade } from './lost-answers.js';
import { failure, type StepOutcome } from './outcomes.js';
import { postFeedItem } from './writes.js';

/** Parent ids per FeedItem query: 200 ids of 18 characters keep the query URI short. */
export const PARENTS_PER_QUERY = 200;

/** The last line of a post: the reference a later run finds it by. */
function postReference(step: FeedPostStep): string {
  const digest = createHash('sha256').update(step.idempotencyKey).digest('base64url');
  return `Service ref: ${digest.slice(0, 22)}`;
}

/** The text posted for `step`: the timeline, then its reference. */
const postText = (step: FeedPostStep) => `${step.text}\n${postReference(step)}`;

/**
 * A post's reference at the end of its Body: plain text, or the HTML of a rich-text post (its
 * last paragraph closed by `</p>`).
 */
const REFERENCE_AT_END = /Service ref: [\w-]+(?=(?:<\/p>)?\s*$)/;

/**
 * Chatter answered 503 (its per-user hourly limit): `left` posts, this one included, wait for
 * the next run; none of them failed.
 * https://developer.salesforce.com/docs/atlas.en-us.chatterapi.meta/chatterapi/intro_rate_limits.htm
 */
export class ChatterLimitReached extends Error {
  override name = 'ChatterLimitReached';
  constructor(readonly left: number) {
    super(
      `${left} timeline posts left for the next run: Chatter's hourly limit. Salesforce limits Chatter requests per user and app per hour; run the same sync again in an hour, and the posts already made are not made twice.`,
    );
  }
}

/** The posts on `parentIds` that carry a reference: parent id -> reference -> feed item id. */
async function postsOn(
  connection: SalesforceConnection,
  parentIds: readonly string[],
): Promise<Map<string, Map<string, string>>> {
  const found = new Map<string, Map<string, string>>();
  for (const ids of chunk(parentIds, PARENTS_PER_QUERY)) {
    const rows = await queryAll<{ Id: string; ParentId: string; Body: string | null }>(
      connection,
      `SELECT Id, ParentId, Body FROM FeedItem WHERE ParentId IN (${ids.map(escapeSoqlString).join(', ')})`,
    );
    for (const row of rows) {
      const reference = REFERENCE_AT_END.exec(row.Body ?? '')?.[0];
      if (reference === undefined) continue;
      const references = found.get(row.ParentId) ?? new Map<string, string>();
      references.set(reference, row.Id);
      found.set(row.ParentId, references);
    }
  }
  return found;
}

/** What the feed post phase needs of the run. */
export interface FeedPostRun {
  readonly journal: ApplyJournal;
  readonly outcomes: Map<PlanStep, StepOutcome>;
  /** Idempotency key of a create -> the record it made in this run. */
  readonly createdIds: ReadonlyMap<string, string>;
  /** Throws to stop the run before the org's API reserve. */
  readonly guard: () => Promise<void>;
  readonly progress: (steps: number) => void;
}

/** The record `step` posts on, if it exists. */
function subjectOf(step: FeedPostStep, createdIds: ReadonlyMap<string, string>) {
  const target: { id?: string; idempotencyKey?: string } = step.target;
  return target.id ?? createdIds.get(target.idempotencyKey ?? '');
}

/**
 * Posts each step's text unless the journal or the org has it; a post whose answer was lost is
 * looked for before it is sent again, and one that still fails is set aside (`failed`).
 */
export async function applyFeedPosts(
  connection: SalesforceConnection,
  steps: readonly FeedPostStep[],
  run: FeedPostRun,
): Promise<void> {
  const { journal, outcomes } = run;
  const todo: { step: FeedPostStep; subjectId: string }[] = [];
  for (const step of steps) {
    const journaled = journal.get(stepKey(step));
    const subjectId = subjectOf(step, run.createdIds);
    if (journaled !== undefined) {
      outcomes.set(step, {
        step,
        status: 'already-done',
        id: journaled,
        reason: 'posted by an earlier run',
      });
    } else if (subjectId === undefined) {
      const reason = `the ${step.target.object} to post on was not created`;
      outcomes.set(step, { step, status: 'skipped', reason });
    } else {
      todo.push({ step, subjectId });
      continue;
    }
    run.progress(1);
  }
  if (todo.length === 0) return;
  await run.guard();
  const posted = await postsOn(connection, [...new Set(todo.map((t) => t.subjectId))]);
  for (const [index, { step, subjectId }] of todo.entries()) {
    const reference = postReference(step);
    const earlier = posted.get(subjectId)?.get(reference);
    if (earlier !== undefined) {
      await journal.record({ [stepKey(step)]: earlier });
      outcomes.set(step, {
        step,
        status: 'already-done',
        id: earlier,
        reason: 'posted by an earlier run (found in the org)',
      });
    } else {
      await run.guard();
      const outcome = await postOnce(connection, step, subjectId, journal);
      if (outcome === 'chatter-limit') throw new ChatterLimitReached(todo.length - index);
      outcomes.set(step, outcome);
    }
    run.progress(1);
  }
}

/**
 * One post; when its answer is lost, the org is asked for it before it is sent again.
 * `chatter-limit`: Chatter refused it for its hourly limit (nothing was posted).
 */
async function postOnce(
  connection: SalesforceConnection,
  step: FeedPostStep,
  subjectId: string,
  journal: ApplyJournal,
): Promise<StepOutcome | 'chatter-limit'> {
  try {
    const id = await sendUnlessMade(
      async () => (await postFeedItem(connection, subjectId, postText(step))).id,
      async () => (await postsOn(connection, [subjectId])).get(subjectId)?.get(postReference(step)),
    );
    await journal.record({ [stepKey(step)]: id });
    return { step, status: 'written', id };
  } catch (error) {
    if (error instanceof SalesforceError && error.code === 'chatter_limit') return 'chatter-limit';
    return failure(step, error);
  }
}
