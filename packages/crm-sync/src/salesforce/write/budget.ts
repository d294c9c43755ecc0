/**
 * The API budget of a sync, before it writes: how many calls the plan's writes will make
 * (composite calls of 200, Bulk API 2.0 jobs above the write threshold with the queries of
 * their duplicate check, one duplicate check and one call per create, one call per feed post and one
 * FeedItem query per 200 records posted on), beside what the org has left today. A run
 * whose estimate would leave fewer calls than the reserve does not start. A chunk the org's own
 * code refuses whole is split within `splitAllowance`, each extra call checked against the
 * reserve like any other.
 */

import type { CrmObject } from '../../model/objects.js';
import type { PlanStep, SyncPlan } from '../../plan/types.js';
import { COMPOSITE_BATCH_LIMIT } from '../../rest/composite.js';
import { type BulkOptions, DEFAULT_WRITE_THRESHOLD } from '../bulk/options.js';
import type { SalesforceConnection } from '../connection/connection.js';
import type { ApiUsage } from '../errors.js';
import { duplicateCheckQueries } from './bulk-apply.js';
import { PARENTS_PER_QUERY } from './feed-posts.js';

/**
 * Calls of one ingest job at the least: open, upload, close, one status poll, and its
 * successful, failed and unprocessed results. A slow job polls more.
 */
export const CALLS_PER_JOB = 7;

/** The API calls a plan's writes will make, by kind, as `estimateWriteCalls` counts them. */
export interface WriteEstimate {
  /** Composite update calls (200 records each). */
  readonly composite: number;
  /** Bulk API 2.0 ingest jobs, and the calls they make at the least. */
  readonly bulkJobs: number;
  readonly bulkCalls: number;
  /** Duplicate checks and create calls of the creates not in jobs. */
  readonly creates: number;
  /** Feed posts, and the queries for posts an earlier run made. */
  readonly feedPosts: number;
  /** The fresh read of the org's usage before the first write (none when nothing is written). */
  readonly limitCheck: number;
  /** All calls of the write phase. */
  readonly total: number;
}

const countBy = (steps: readonly { readonly object: CrmObject }[]) => {
  const counts = new Map<CrmObject, number>();
  for (const s of steps) counts.set(s.object, (counts.get(s.object) ?? 0) + 1);
  return counts;
};

/**
 * What applying `plan` will cost in API calls (`bulk: false`: composite and single calls only).
 * With `autoAssign` (default true, as `applyPlan`) Lead creates stay one at a time however many:
 * a Bulk API job would not run the assignment rules.
 */
export function estimateWriteCalls(
  plan: SyncPlan,
  options: { readonly bulk?: BulkOptions | false; readonly autoAssign?: boolean } = {},
): WriteEstimate {
  const threshold =
    options.bulk === false
      ? Number.POSITIVE_INFINITY
      : (options.bulk?.writeThreshold ?? DEFAULT_WRITE_THRESHOLD);
  const of = <T extends PlanStep['type']>(type: T) =>
    plan.steps.filter((s): s is Extract<PlanStep, { type: T }> => s.type === type);
  let bulkJobs = 0;
  let composite = 0;
  for (const n of countBy(of('update')).values()) {
    if (n >= threshold) bulkJobs += 1;
    else composite += n;
  }
  let creates = 0;
  let duplicateQueries = 0;
  const assigned = options.autoAssign !== false;
  for (const [object, n] of countBy(of('create'))) {
    if (n >= threshold && !(object === 'Lead' && assigned)) {
      bulkJobs += 1;
      const checks = of('create').map((s) => s.duplicateCheck);
      for (const field of ['Email', 'Website'] as const) {
        const values = checks.filter((c) => c.object === object && c.field === field);
        if (values.length > 0)
          duplicateQueries += duplicateCheckQueries(
            object,
            field,
            values.map((c) => c.value),
          ).length;
      }
    } else creates += 2 * n;
  }
  const compositeCalls = Math.ceil(composite / COMPOSITE_BATCH_LIMIT);
  const bulkCalls = bulkJobs * CALLS_PER_JOB + duplicateQueries;
  const posts = of('feedPost');
  const postedOn = new Set(posts.map((s) => JSON.stringify(s.target)));
  const feedPosts = posts.length + Math.ceil(postedOn.size / PARENTS_PER_QUERY);
  const work = compositeCalls + bulkCalls + creates + feedPosts;
  const limitCheck = work > 0 ? 1 : 0;
  return {
    composite: compositeCalls,
    bulkJobs,
    bulkCalls,
    creates,
    feedPosts,
    limitCheck,
    total: work + limitCheck,
  };
}

/**
 * The calls splitting one refused chunk of `records` may cost beyond those that pay for
 * themselves (chunk-splits.ts; a half that writes records gives back its call and its twin's):
 * 8 x log2(n), 64 for 200. In a simulation of 300 random placements each, that isolated every
 * refusing record up to 30 in a call of 200 (32 lost records from 16 on); the 5,000-company
 * customer-org run needed more than 32. An org whose trigger refuses everything costs a bounded
 * share (65 calls per 200), not twice the records in calls.
 */
export function splitAllowance(records: number): number {
  return 8 * Math.ceil(Math.log2(Math.max(2, records)));
}

/** The reserve a run keeps by default: 2% of the daily allocation, at least 50 calls. */
export function defaultReserve(usage: ApiUsage): number {
  return Math.max(50, Math.ceil(usage.max * 0.02));
}

/** A run's estimate beside the org's API usage: whether it leaves the reserve. */
export interface Budget {
  readonly estimate: WriteEstimate;
  readonly usage: ApiUsage;
  readonly reserve: number;
  /** Calls left today after the run, by the estimate. */
  readonly leftAfter: number;
  /** False when the run would leave fewer calls than the reserve. */
  readonly fits: boolean;
}

/** The estimate beside the org's remaining daily limit (one `/limits` call). */
export async function checkBudget(
  connection: SalesforceConnection,
  estimate: WriteEstimate,
  reserve?: number,
): Promise<Budget> {
  const usage = await connection.limits();
  const keep = reserve ?? defaultReserve(usage);
  const leftAfter = usage.max - usage.used - estimate.total;
  return { estimate, usage, reserve: keep, leftAfter, fits: leftAfter >= keep };
}
