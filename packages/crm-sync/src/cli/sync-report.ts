/** What `service-crm sync` prints when it is done (text or `--json`), and its exit code. */
import type { PlanStep, SyncPlan } from '../plan/types.js';
import type { SalesforceConnection } from '../salesforce/connection/connection.js';
import type { ApplyResult } from '../salesforce/write/apply.js';
import type { budgetFor } from './api-budget.js';
import type { CrmSource } from './crm-source.js';
import { remedyFor } from './failure-remedies.js';
import { EXIT, type ExitCode, type Io } from './output.js';

/** The values a finished sync reports on. */
export interface SyncReport {
  readonly connection: SalesforceConnection | undefined;
  readonly plan: SyncPlan;
  readonly source: CrmSource;
  readonly budget: Awaited<ReturnType<typeof budgetFor>>;
  readonly result: ApplyResult;
  readonly dryRun: boolean;
  readonly json: boolean;
}

function describeStep(step: PlanStep): string {
  switch (step.type) {
    case 'update':
      return `update ${step.object} ${step.id} (${Object.keys(step.fields).length} fields)`;
    case 'create':
      return `create ${step.object} ${step.idempotencyKey}`;
    case 'feedPost':
      return `post on ${step.target.object} ${'id' in step.target ? step.target.id : step.target.idempotencyKey}`;
    case 'skip':
      return `skip ${step.subject.kind === 'company' ? step.subject.domain : step.subject.email} [${step.code}]`;
  }
}

/** A step set aside because its link to the org failed (`failure` in salesforce/write/outcomes.ts). */
const setAside = (o: ApplyResult['outcomes'][number]) =>
  o.status === 'failed' && o.errors.some((e) => e.statusCode === 'NETWORK');

/**
 * The status code the org refused a step with, this run or an earlier one (`earlierRun`: not sent
 * again); undefined for a step it did not refuse or one set aside for its link.
 */
function refusalOf(
  o: ApplyResult['outcomes'][number],
): { statusCode: string; earlierRun: boolean } | undefined {
  if (o.status === 'skipped' && o.refusal)
    return { statusCode: o.refusal.statusCode, earlierRun: o.refusal.earlierRun === true };
  if (o.status !== 'failed' || setAside(o)) return undefined;
  return { statusCode: o.errors[0]?.statusCode ?? 'UNKNOWN', earlierRun: false };
}

/**
 * The records the org refused, a line per Salesforce status code with its count and remedy
 * (each record's message is in the `--json` output); the steps set aside for a failed link are
 * folded into one line, so an outage does not print a line per step.
 */
function reportFailures(io: Io, result: ApplyResult): void {
  const aside: string[] = [];
  let firstError = '';
  const byCode = new Map<string, { now: number; before: number }>();
  for (const o of result.outcomes) {
    if (o.status === 'failed' && setAside(o)) {
      aside.push(describeStep(o.step));
      firstError ||= o.errors[0]?.message ?? '';
      continue;
    }
    const refusal = refusalOf(o);
    if (!refusal) continue;
    const count = byCode.get(refusal.statusCode) ?? { now: 0, before: 0 };
    count[refusal.earlierRun ? 'before' : 'now'] += 1;
    byCode.set(refusal.statusCode, count);
  }
  if (byCode.size > 0) io.out('Refused by the org (details per record: --json):');
  for (const [code, { now, before }] of byCode) {
    const held = before > 0 ? `; ${before} not sent again: refused before, data unchanged` : '';
    io.out(`  ${code}: ${now + before} (${now} this run${held}): ${remedyFor(code)}`);
  }
  if (aside.length === 0) return;
  const shown = aside.slice(0, 3).join(', ');
  io.out(
    `set aside: ${aside.length} steps whose connection to the org failed (${shown}${aside.length > 3 ? ', ...' : ''}); first error: ${firstError}. Run the same sync again to write them; nothing is written twice.`,
  );
}

function reportText(io: Io, { connection, budget, result, dryRun }: SyncReport): void {
  if (dryRun) {
    for (const o of result.outcomes)
      io.out(
        `${o.status === 'planned' ? 'would' : o.status}: ${describeStep(o.step)} (${o.step.reason})`,
      );
    io.out(budget.line);
  }
  reportFailures(io, result);
  reportFitted(io, result);
  const c = result.counts;
  const calls = connection?.totalCalls ?? 0;
  io.out(
    `${dryRun ? 'Dry run: ' : ''}${c.written} written, ${c.planned} planned, ${c['already-done']} already done, ${c.skipped} skipped, ${c.failed} failed, ${c.pending} pending; ${calls} API calls.`,
  );
  if (result.stopped) io.err(result.stopped.message);
}

/** Prints the run's summary, counts and failures (the whole outcome list with `--json`). */
export function reportSync(io: Io, report: SyncReport): void {
  if (!report.json) {
    reportText(io, report);
    return;
  }
  const { connection, plan, source, budget, result } = report;
  const { estimate, budget: checked } = budget;
  io.out(
    JSON.stringify({
      summary: plan.summary,
      counts: result.counts,
      stopped: result.stopped,
      calls: connection?.stats.calls ?? {},
      reads: source.changes?.reads,
      budget: { estimate, ...(checked ? { usage: checked.usage, reserve: checked.reserve } : {}) },
      outcomes: result.outcomes,
    }),
  );
}

/** `api-limit` when the run stopped at the org's limit, `partial` when steps failed or wait. */
export function exitCodeOf(result: ApplyResult): ExitCode {
  if (result.stopped) return result.stopped.reason === 'api-limit' ? EXIT.apiLimit : EXIT.partial;
  return result.counts.failed > 0 ? EXIT.partial : EXIT.ok;
}

/** One line for the values cut or left out to fit the org's fields (each listed by `--json`). */
function reportFitted(io: Io, result: ApplyResult): void {
  const fits = result.outcomes.flatMap((o) =>
    o.status === 'written' && o.fitted
      ? o.fitted.map(
          (f) =>
            `${describeStep(o.step)}: ${f.field} ${f.change === 'cut' ? f.reason : `left out (${f.reason})`}`,
        )
      : [],
  );
  if (fits.length === 0) return;
  io.out(
    `fitted: ${fits.length} values cut or left out to fit the org's fields; first: ${fits[0]}. --json lists each (outcomes[].fitted).`,
  );
}
