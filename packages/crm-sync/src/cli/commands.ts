/** The commands that work on a connected org: fields plan|apply|export, stage, sync. */
import { stat } from 'node:fs/promises';
import {
  type CrmOpportunity,
  computePipelineStage,
  customFields,
  type ObservedCompany,
  type PlanStep,
  planSync,
  toSourceFormat,
} from '../index.js';
import { applyPlan } from '../salesforce/apply.js';
import type { SalesforceConnection } from '../salesforce/connection.js';
import { type FieldSetupPlan, planFieldSetup, setUpFields } from '../salesforce/fields.js';
import { fileJournal } from '../salesforce/journal.js';
import { readAccountsWithStage } from '../salesforce/reads.js';
import type { SyncConfig } from './config.js';
import { budgetFor, type CrmSourceOptions, crmSource } from './crm-source.js';
import { writeDxProject } from './dx-project.js';
import { importLookupCore, importLookupCoreNode } from './lookup-core.js';
import { bar, CliError, EXIT, type ExitCode, type Io } from './output.js';

export async function fieldsPlan(
  connection: SalesforceConnection,
  io: Io,
  json: boolean,
  permissionSet?: string,
): Promise<ExitCode> {
  const plan = await planFieldSetup(connection, { permissionSet });
  if (json) {
    io.out(
      JSON.stringify({
        upToDate: plan.upToDate,
        upserts: plan.upserts.map((u) => ({
          field: u.field.fullName,
          reason: u.reason,
          differences: u.differences,
        })),
        grants: plan.grants.map((g) => g.fullName),
        profile: plan.profileFullName,
        permissionSet: plan.permissionSet,
      }),
    );
    return EXIT.ok;
  }
  if (plan.upToDate) {
    io.out(
      `Fields are up to date: ${customFields.length} fields exist and profile ${plan.profileFullName} can read and edit them. Nothing to change.`,
    );
    return EXIT.ok;
  }
  for (const u of plan.upserts) {
    io.out(
      `${u.reason === 'missing' ? 'create' : 'update'} ${u.field.fullName}${u.differences.length ? ` (${u.differences.join(', ')})` : ''}`,
    );
  }
  if (plan.grants.length > 0)
    io.out(`grant read+edit on ${plan.grants.length} fields to ${grantee(plan)}`);
  if (plan.permissionSet && !plan.permissionSet.assigned)
    io.out(`assign permission set ${plan.permissionSet.name} to the connected user`);
  io.out(
    `${plan.upserts.length} fields to upsert, ${plan.grants.length} to grant. Run \`service-crm fields apply\` to apply.`,
  );
  return EXIT.ok;
}

/** Who the grants go to: the profile (default) or the permission set. */
function grantee(plan: FieldSetupPlan): string {
  return plan.permissionSet
    ? `permission set ${plan.permissionSet.name}`
    : `profile ${plan.profileFullName}`;
}

export async function fieldsApply(
  connection: SalesforceConnection,
  io: Io,
  json: boolean,
  permissionSet?: string,
): Promise<ExitCode> {
  const result = await setUpFields(connection, { permissionSet });
  if (json)
    io.out(
      JSON.stringify({
        unchanged: result.unchanged,
        ok: result.ok,
        calls: result.calls,
        fields: result.fields,
        grants: result.grants,
        assignment: result.assignment,
      }),
    );
  else if (result.unchanged) io.out('Fields are up to date: no changes.');
  else {
    const created = result.fields.filter((f) => f.ok && f.created).length;
    const updated = result.fields.filter((f) => f.ok && f.created === false).length;
    const granted = result.grants.filter((g) => g.ok).length;
    io.out(
      `Created ${created} fields, updated ${updated}, granted ${granted} on ${grantee(result.plan)}${result.assignment?.created ? ', assigned it to the connected user' : ''} (${result.calls.upsertMetadata} upsert calls, ${result.calls.updateMetadata} profile update).`,
    );
    for (const f of [
      ...result.fields,
      ...result.grants,
      ...(result.assignment
        ? [{ ...result.assignment, fullName: 'permission set assignment' }]
        : []),
    ].filter((r) => !r.ok)) {
      io.out(
        `failed ${f.fullName}: ${f.errors.map((e) => `${e.statusCode} ${e.message}`).join('; ')}`,
      );
    }
  }
  return result.ok ? EXIT.ok : EXIT.partial;
}

/** Writes the fields as a Salesforce DX project under `dir` and says how to deploy it. */
export async function fieldsExport(dir: string, io: Io, json: boolean): Promise<ExitCode> {
  const project = await writeDxProject(dir, toSourceFormat(customFields));
  if (json) io.out(JSON.stringify({ dir, ...project }));
  else
    io.out(
      `Wrote a Salesforce DX project of ${project.files.length} files to ${dir}${project.projectFileWritten ? '' : ' (its sfdx-project.json kept as it was)'}. Deploy it with the Salesforce CLI:\n  ${project.deployCommand}`,
    );
  return EXIT.ok;
}

export async function stage(
  connection: SalesforceConnection,
  io: Io,
  options: { account?: string | undefined; json: boolean },
): Promise<ExitCode> {
  const where = options.account ? [{ field: 'Id', value: options.account }] : [];
  // The Accounts with their Opportunities' facts from one query (a subquery).
  const { accounts, opportunities } = await readAccountsWithStage(connection, { where });
  if (options.account && accounts.length === 0) {
    throw new CliError(
      EXIT.usage,
      `No Account with id ${options.account} is visible to the connected user`,
    );
  }
  const byAccount = new Map<string, CrmOpportunity[]>();
  for (const o of opportunities) {
    const list = byAccount.get(o.AccountId ?? '') ?? [];
    list.push(o);
    byAccount.set(o.AccountId ?? '', list);
  }
  const rows = accounts.map((a) => ({
    id: a.Id,
    name: a.Name ?? '',
    ...computePipelineStage({
      accountType: a.Type ?? null,
      opportunities: (byAccount.get(a.Id) ?? []).map((o) => ({
        isClosed: o.IsClosed,
        isWon: o.IsWon,
      })),
    }),
  }));
  if (options.json) io.out(JSON.stringify(rows));
  else for (const r of rows) io.out(`${r.id}  ${r.stage.padEnd(16)}  ${r.name}  (${r.reason})`);
  return EXIT.ok;
}

/**
 * The events file's lines, read at the byte level by lookup-core (a line that is not UTF-8 or
 * is too long comes as one `ingest` rejects with its line number, not as replacement characters).
 */
async function lines(path: string) {
  const unreadable = (why: string) =>
    new CliError(EXIT.usage, `Cannot read the events file ${path}: ${why}`);
  try {
    if (!(await stat(path)).isFile()) throw unreadable('not a file');
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw unreadable((error as NodeJS.ErrnoException).code ?? (error as Error).message);
  }
  const { readNdjson } = await importLookupCoreNode();
  return readNdjson(path);
}

async function observe(path: string, workspace: string, io: Io): Promise<ObservedCompany[]> {
  const events = await lines(path);
  const { openEmbeddedStore } = await importLookupCore();
  const store = await openEmbeddedStore();
  try {
    const ingested = await store.ingest(events, {
      onProgress: (p) => io.progress(`reading events: ${p.read} lines`),
    });
    for (const r of ingested.rejected.slice(0, 5))
      io.err(`${path}:${r.line}: skipped: ${r.reason}`);
    if (ingested.rejected.length > 5)
      io.err(`... and ${ingested.rejected.length - 5} more lines skipped`);
    const observed: ObservedCompany[] = [];
    for await (const company of store.readAggregates({ workspace })) observed.push(company);
    return observed;
  } finally {
    await store.close();
  }
}

export async function sync(
  connection: SalesforceConnection | undefined,
  io: Io,
  options: {
    events: string;
    dryRun: boolean;
    json: boolean;
    journal: string;
    config: SyncConfig;
    delta: CrmSourceOptions & { full: boolean; apiReserve: number | undefined };
  },
): Promise<ExitCode> {
  const { config } = options;
  const observed = await observe(options.events, config.workspace, io);
  const source = await crmSource(connection, io, options.delta);
  const plan = await source.plan((crm) =>
    planSync({
      crm,
      observed,
      settings: config.settings,
      motions: config.motions,
      facts: config.facts,
      full: options.delta.full,
    }),
  );
  if (!options.dryRun) await source.keep(plan);
  const { estimate, budget, line } = await budgetFor(connection, plan, {
    dryRun: options.dryRun,
    bulk: config.bulk,
    autoAssign: config.autoAssign,
    ...(options.delta.apiReserve === undefined ? {} : { apiReserve: options.delta.apiReserve }),
  });
  const journal = options.dryRun ? undefined : await fileJournal(options.journal);
  const result = await applyPlan(connection, plan, {
    dryRun: options.dryRun,
    autoAssign: config.autoAssign,
    omitFields: config.unreadable,
    ...(options.delta.apiReserve === undefined ? {} : { apiReserve: options.delta.apiReserve }),
    usageFresh: budget !== undefined,
    bulk: config.bulk,
    ...(journal ? { journal } : {}),
    onProgress: (p) => io.progress(bar(p.done, p.total, `${p.phase} steps`)),
  });
  // A finished run starts the next one afresh; a stopped one leaves the journal to resume from.
  if (journal && !result.stopped) await journal.clear?.();
  const calls = connection?.totalCalls ?? 0;
  if (options.json) {
    io.out(
      JSON.stringify({
        summary: plan.summary,
        counts: result.counts,
        stopped: result.stopped,
        calls: connection?.stats.calls ?? {},
        reads: source.changes?.reads,
        budget: { estimate, ...(budget ? { usage: budget.usage, reserve: budget.reserve } : {}) },
        outcomes: result.outcomes,
      }),
    );
  } else {
    if (options.dryRun) {
      for (const o of result.outcomes)
        io.out(
          `${o.status === 'planned' ? 'would' : o.status}: ${describeStep(o.step)} (${o.step.reason})`,
        );
      io.out(line);
    }
    for (const o of result.outcomes) {
      if (o.status === 'failed')
        io.out(
          `failed: ${describeStep(o.step)}: ${o.errors.map((e) => `${e.statusCode} ${e.message}`).join('; ')}`,
        );
    }
    const c = result.counts;
    io.out(
      `${options.dryRun ? 'Dry run: ' : ''}${c.written} written, ${c.planned} planned, ${c['already-done']} already done, ${c.skipped} skipped, ${c.failed} failed, ${c.pending} pending; ${calls} API calls.`,
    );
    if (result.stopped) io.err(result.stopped.message);
  }
  if (result.stopped) return result.stopped.reason === 'api-limit' ? EXIT.apiLimit : EXIT.partial;
  return result.counts.failed > 0 ? EXIT.partial : EXIT.ok;
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
