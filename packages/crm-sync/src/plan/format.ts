/** A plan as lines of text, for a dry run: one line per step, its reason, then the summary. */
import type { PlanStep, SyncPlan } from './types.js';

function describe(step: PlanStep): string {
  switch (step.type) {
    case 'update':
      return `update ${step.object} ${step.id}: ${Object.keys(step.fields).length} fields`;
    case 'create':
      return `create ${step.object} ${step.idempotencyKey}: ${Object.keys(step.fields).length} fields`;
    case 'feedPost': {
      const target = 'id' in step.target ? step.target.id : step.target.idempotencyKey;
      return `post timeline on ${step.target.object} ${target}`;
    }
    case 'skip':
      return `skip (${step.code})`;
  }
}

/** Renders a plan as one line per step with its reason, then the counts: the dry-run output. */
export function formatPlan(plan: SyncPlan): string {
  const { updates, creates, feedPosts, skips, ambiguous } = plan.summary;
  return [
    ...plan.steps.map((step) => `${describe(step)}  - ${step.reason}`),
    `${updates} updates, ${creates} creates, ${feedPosts} feed posts, ${skips} skipped (${ambiguous} ambiguous)`,
  ].join('\n');
}
