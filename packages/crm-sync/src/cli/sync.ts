/**
 * `service-crm sync`, in one direction: gather the inputs (the events file's companies, the CRM
 * from the org or a snapshot, the settings), plan, keep the snapshot, check the API budget,
 * apply, report. Each step hands the next a value; none calls back into this module.
 */
import type { ObservedCompany } from '@service/lookup-contract';
import { planSync } from '../plan/plan.js';
import type { SyncPlan } from '../plan/types.js';
import type { SalesforceConnection } from '../salesforce/connection/connection.js';
import { fileJournal } from '../salesforce/state/journal.js';
import { applyPlan } from '../salesforce/write/apply.js';
import { checkCreateDefaults } from '../salesforce/write/create-defaults.js';
import { budgetFor } from './api-budget.js';
import type { SyncConfig } from './config.js';
import {
  type CrmSource,
  type CrmSourceOptions,
  completedFor,
  keepSnapshot,
  readCrmSource,
} from './crm-source.js';
import { observedCompanies } from './events-file.js';
import { bar, type ExitCode, type Io } from './output.js';
import { exitCodeOf, reportSync } from './sync-report.js';

/** What `sync` is given: the events file, the journal, the configuration and the CRM's source. */
export interface SyncOptions {
  readonly events: string;
  readonly dryRun: boolean;
  readonly json: boolean;
  readonly journal: string;
  readonly config: SyncConfig;
  readonly delta: CrmSourceOptions & { full: boolean; apiReserve: number | undefined };
}

/**
 * The plan and the CRM it was made from: made once, and once more from a CRM completed with the
 * records the first plan updates but the snapshot lacked.
 */
async function planFrom(
  connection: SalesforceConnection | undefined,
  read: CrmSource,
  options: SyncOptions,
  observed: readonly ObservedCompany[],
): Promise<{ source: CrmSource; plan: SyncPlan }> {
  const { config } = options;
  const plan = (source: CrmSource) =>
    planSync({
      crm: source.crm,
      observed,
      settings: config.settings,
      motions: config.motions,
      facts: config.facts,
      full: options.delta.full,
    });
  const first = plan(read);
  const completed = await completedFor(connection, read, first, config);
  return completed === undefined
    ? { source: read, plan: first }
    : { source: completed, plan: plan(completed) };
}

/** `service-crm sync`: plans from the events and the CRM, applies the plan, reports; the exit code. */
export async function sync(
  connection: SalesforceConnection | undefined,
  io: Io,
  options: SyncOptions,
): Promise<ExitCode> {
  const { config, dryRun } = options;
  const reserve =
    options.delta.apiReserve === undefined ? {} : { apiReserve: options.delta.apiReserve };
  // A createDefaults the org cannot take stops the run before it reads anything.
  if (connection) await checkCreateDefaults(connection, config.createDefaults);
  const observed = await observedCompanies(options.events, config.workspace, io);
  const read = await readCrmSource(connection, io, options.delta);
  const { source, plan } = await planFrom(connection, read, options, observed);
  if (!dryRun) await keepSnapshot(source, plan);
  const budget = await budgetFor(connection, plan, {
    dryRun,
    bulk: config.bulk,
    autoAssign: config.autoAssign,
    ...reserve,
  });
  const journal = dryRun ? undefined : await fileJournal(options.journal);
  const result = await applyPlan(connection, plan, {
    dryRun,
    autoAssign: config.autoAssign,
    duplicateRules: config.duplicateRules,
    omitFields: config.unreadable,
    ...reserve,
    usageFresh: budget.budget !== undefined,
    bulk: config.bulk,
    createDefaults: config.createDefaults,
    crm: source.crm,
    ...(journal ? { journal } : {}),
    onProgress: (p) => io.progress(bar(p.done, p.total, `${p.phase} steps`)),
  });
  // A finished run starts the next one afresh; a stopped one leaves the journal to resume from.
  if (journal && !result.stopped) await journal.clear?.();
  reportSync(io, { connection, plan, source, budget, result, dryRun, json: options.json });
  return exitCodeOf(result);
}
