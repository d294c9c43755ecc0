/**
 * What a sync may spend: the API calls its writes would make, beside the org's remaining daily
 * limit when an org is connected.
 */
import type { SyncPlan } from '../plan/types.js';
import type { BulkOptions } from '../salesforce/bulk/options.js';
import type { SalesforceConnection } from '../salesforce/connection/connection.js';
import {
  type Budget,
  checkBudget,
  estimateWriteCalls,
  type WriteEstimate,
} from '../salesforce/write/budget.js';
import { CliError, EXIT } from './output.js';

function estimateText(reads: number | undefined, e: WriteEstimate): string {
  const parts = [
    `${e.composite} composite`,
    ...(e.bulkJobs > 0 ? [`${e.bulkJobs} bulk jobs (${e.bulkCalls} calls at least)`] : []),
    `${e.creates} for creates`,
    `${e.feedPosts} feed posts`,
    `${e.limitCheck} limit check`,
  ];
  const read = reads === undefined ? 'reads: offline' : `reads made ${reads} calls`;
  return `API budget: ${read}; the writes would make ${e.total} (${parts.join(', ')})`;
}

/**
 * The budget of the writes, beside the remaining daily limit when an org is connected (`line`,
 * for a dry run to print); a real run whose estimate would cross the reserve is refused.
 */
export async function budgetFor(
  connection: SalesforceConnection | undefined,
  plan: SyncPlan,
  options: {
    readonly dryRun: boolean;
    readonly apiReserve?: number;
    readonly bulk?: BulkOptions | false;
    /** Lead assignment rules on create (default true): Lead creates then stay off jobs. */
    readonly autoAssign?: boolean;
  },
): Promise<{ estimate: WriteEstimate; budget?: Budget; line: string }> {
  const reads = connection?.totalCalls;
  const estimate = estimateWriteCalls(plan, {
    bulk: options.bulk ?? {},
    autoAssign: options.autoAssign !== false,
  });
  if (connection === undefined) {
    const line = `${estimateText(reads, estimate)}; the org's daily limit is not known offline.`;
    return { estimate, line };
  }
  if (estimate.total === 0 && !options.dryRun) return { estimate, line: '' };
  const budget = await checkBudget(connection, estimate, options.apiReserve);
  const left = budget.usage.max - budget.usage.used;
  const verdict = budget.fits
    ? `${budget.leftAfter} would be left`
    : `that would leave ${budget.leftAfter}, under the reserve`;
  const line = `${estimateText(reads, estimate)}; the org has ${left} of ${budget.usage.max} calls left today (reserve ${budget.reserve}): ${verdict}.`;
  if (!options.dryRun && !budget.fits) {
    throw new CliError(
      EXIT.apiLimit,
      `${line} Not started: run it when the org has more calls left (Salesforce frees them over a rolling 24 hours), or lower --api-reserve.`,
    );
  }
  return { estimate, budget, line };
}

/** `--api-reserve`: a number of calls, or undefined for the default reserve. */
export function parseReserve(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0)
    throw new CliError(EXIT.usage, `--api-reserve ${value} is not a number of calls`);
  return n;
}
