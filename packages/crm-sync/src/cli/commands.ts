/** The commands that work on a connected org: fields plan|apply|export, stage (sync: sync.ts). */
import { toSourceFormat } from '../metadata/source-format.js';
import { customFields } from '../model/catalogue.js';
import type { FieldMapping } from '../plan/field-mappings.js';
import { computePipelineStage } from '../plan/pipeline-stage.js';
import type { CrmOpportunity } from '../plan/types.js';
import type { SalesforceConnection } from '../salesforce/connection/connection.js';
import { readAccountsWithStage } from '../salesforce/read/reads.js';
import type { ExistingField } from '../salesforce/setup/existing-fields.js';
import { type FieldSetupPlan, planFieldSetup, setUpFields } from '../salesforce/setup/fields.js';
import { checkMappedFields } from '../salesforce/setup/mapped-fields.js';
import { writeDxProject } from './dx-project.js';
import { CliError, EXIT, type ExitCode, type Io } from './output.js';

/** What `fields plan` and `fields apply` are run with. */
export interface FieldsOptions {
  readonly json: boolean;
  readonly permissionSet?: string | undefined;
  /** `--convert-existing-fields`: convert service fields the org has with another type. */
  readonly convertExistingFields: boolean;
  /** The property-sync mappings of `--config`, checked against the org by `fields plan`. */
  readonly mappings?: readonly FieldMapping[] | undefined;
}

/** One line per field left as it is: what the org has, ours, and what converting costs. */
function leftLines(left: readonly ExistingField[]): string[] {
  return left.map(
    (l) =>
      `leave ${l.field.fullName}: it is ${l.existing.type}, ours ${l.ours}; ${l.costs.join('; ')}. Convert it with --convert-existing-fields`,
  );
}

function relabelledLines(relabelled: readonly ExistingField[]): string[] {
  return relabelled.map(
    (l) =>
      `keep ${l.field.fullName}: labelled "${l.existing.label}" in the org (ours "${l.field.label}"); a label alone is never rewritten`,
  );
}

const existingJson = (l: ExistingField) => ({
  field: l.field.fullName,
  type: l.existing.type,
  ours: l.ours,
  label: l.existing.label,
  differences: l.differences,
  costs: l.costs,
});

export async function fieldsPlan(
  connection: SalesforceConnection,
  io: Io,
  options: FieldsOptions,
): Promise<ExitCode> {
  const { json, permissionSet, convertExistingFields } = options;
  const plan = await planFieldSetup(connection, { permissionSet, convertExistingFields });
  const refused = options.mappings ? await checkMappedFields(connection, options.mappings) : [];
  const exit = refused.length > 0 ? EXIT.partial : EXIT.ok;
  if (json) {
    io.out(
      JSON.stringify({
        upToDate: plan.upToDate,
        upserts: plan.upserts.map((u) => ({
          field: u.field.fullName,
          reason: u.reason,
          differences: u.differences,
        })),
        left: plan.left.map(existingJson),
        relabelled: plan.relabelled.map(existingJson),
        refusedMappings: refused.map(({ mapping: _, ...r }) => r),
        grants: plan.grants.map((g) => g.fullName),
        profile: plan.profileFullName,
        permissionSet: plan.permissionSet,
      }),
    );
    return exit;
  }
  for (const r of refused)
    io.out(
      `refuse mapping ${r.field}: it is ${r.type}, the sync would write ${r.writes}: ${r.reason}`,
    );
  for (const line of relabelledLines(plan.relabelled)) io.out(line);
  if (plan.upToDate) {
    io.out(
      `Fields are up to date: ${customFields.length} fields exist and profile ${plan.profileFullName} can read and edit them. Nothing to change.`,
    );
    return exit;
  }
  for (const u of plan.upserts) {
    io.out(
      `${u.reason === 'missing' ? 'create' : 'convert'} ${u.field.fullName}${u.differences.length ? ` (${u.differences.join(', ')})` : ''}`,
    );
  }
  for (const line of leftLines(plan.left)) io.out(line);
  if (plan.grants.length > 0)
    io.out(`grant read+edit on ${plan.grants.length} fields to ${grantee(plan)}`);
  if (plan.permissionSet && !plan.permissionSet.assigned)
    io.out(`assign permission set ${plan.permissionSet.name} to the connected user`);
  io.out(
    `${plan.upserts.length} fields to upsert, ${plan.left.length} to leave, ${plan.grants.length} to grant. Run \`service-crm fields apply\` to apply.`,
  );
  return exit;
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
  options: FieldsOptions,
): Promise<ExitCode> {
  const { json, permissionSet, convertExistingFields } = options;
  const result = await setUpFields(connection, { permissionSet, convertExistingFields });
  const { left, relabelled } = result.plan;
  if (json)
    io.out(
      JSON.stringify({
        unchanged: result.unchanged,
        ok: result.ok,
        calls: result.calls,
        fields: result.fields,
        left: left.map(existingJson),
        relabelled: relabelled.map(existingJson),
        grants: result.grants,
        assignment: result.assignment,
      }),
    );
  else if (result.unchanged) {
    for (const line of relabelledLines(relabelled)) io.out(line);
    io.out('Fields are up to date: no changes.');
  } else {
    const created = result.fields.filter((f) => f.ok && f.created).length;
    const updated = result.fields.filter((f) => f.ok && f.created === false).length;
    const granted = result.grants.filter((g) => g.ok).length;
    io.out(
      `Created ${created} fields, updated ${updated}, granted ${granted} on ${grantee(result.plan)}${result.assignment?.created ? ', assigned it to the connected user' : ''} (${result.calls.upsertMetadata} upsert calls, ${result.calls.updateMetadata} profile update).`,
    );
    if (left.length > 0)
      io.out(`Left ${left.length} field${left.length === 1 ? '' : 's'} as the org has them:`);
    for (const line of [...leftLines(left), ...relabelledLines(relabelled)]) io.out(line);
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
  // A field left as it is was not set up: the run is not complete (exit 4, as a failed field).
  return result.ok && left.length === 0 ? EXIT.ok : EXIT.partial;
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
