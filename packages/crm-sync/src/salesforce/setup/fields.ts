/**
 * Field setup (docs/crm-sync/salesforce-setup.md, "Permissions, step by step", for the fields of
 * docs/crm-sync/catalogue.md): check the connecting user's permissions, read what exists, upsert
 * only missing fields (at most 10 per Metadata call), then grant read and edit on the connecting
 * user's profile only, for exactly the service's fields that lack it. A field the org has with
 * another type, length or precision is left and reported (existing-fields.ts) unless told to
 * convert it. A second run finds nothing to do and makes no Metadata call.
 */

import { METADATA_BATCH_LIMIT } from '../../metadata/requests.js';
import type { MetadataError } from '../../metadata/results.js';
import { type CustomFieldSpec, customFields } from '../../model/catalogue.js';
import { chunk } from '../../model/chunk.js';
import type { CrmObject } from '../../model/objects.js';
import { escapeSoqlString } from '../../rest/soql.js';
import type { Identity, SalesforceConnection } from '../connection/connection.js';
import { SalesforceError, SalesforcePermissionError } from '../errors.js';
import { queryAll } from '../read/reads.js';
import {
  compareExisting,
  convertingComponent,
  type ExistingField,
  type FieldDefinition,
} from './existing-fields.js';
import {
  customFieldComponent,
  permissionSetComponent,
  profileGrantComponent,
} from './metadata-components.js';

/** What to do when field setup lacks permissions, in plain words (`SalesforcePermissionError.remedy`). */
export const PERMISSION_REMEDY =
  'Reconnect with a System Administrator (or a profile cloned from Standard User with Modify All Data, Customize Application, and Manage Profiles and Permission Sets) and re-run the field setup (`service-crm fields apply`). Or have an admin deploy the fields with their own tooling: `service-crm fields export`.';

/** The connecting user's profile and what it lacks for field setup. */
export interface Preflight {
  readonly identity: Identity;
  readonly profileId: string;
  readonly profileName: string;
  /** The profile's Metadata API full name (Tooling), e.g. `Admin`. */
  readonly profileFullName: string;
  readonly permissions: {
    readonly modifyAllData: boolean;
    readonly customizeApplication: boolean;
    readonly manageProfilesAndPermissionSets: boolean;
  };
  /** Object access from the global describe. */
  readonly objects: Readonly<
    Record<
      'Account' | 'Contact' | 'Lead' | 'Opportunity',
      { readonly read: boolean; readonly edit: boolean }
    >
  >;
  /** What field setup would lack, in words; empty when it can run. */
  readonly missing: readonly string[];
}

const quote = escapeSoqlString;

/**
 * Resolves the connecting user's profile and checks the permissions field setup needs: Modify All
 * Data, Customize Application, Manage Profiles and Permission Sets, and object access.
 */
export async function preflight(connection: SalesforceConnection): Promise<Preflight> {
  const identity = await connection.identity();
  const [user] = await queryAll<{ ProfileId: string; Profile: { Name: string } | null }>(
    connection,
    `SELECT Id, ProfileId, Profile.Name FROM User WHERE Id = ${quote(identity.userId)}`,
  );
  if (!user) {
    throw new SalesforcePermissionError(['Read on User and Profile'], PERMISSION_REMEDY);
  }
  const [profile] = await queryAll<{ FullName: string }>(
    connection,
    `SELECT Id, FullName FROM Profile WHERE Id = ${quote(user.ProfileId)}`,
    { tooling: true },
  );
  const assignments = await queryAll<{ PermissionSet: Record<string, boolean> | null }>(
    connection,
    `SELECT PermissionSet.PermissionsModifyAllData, PermissionSet.PermissionsCustomizeApplication, PermissionSet.PermissionsManageProfilesPermissionsets FROM PermissionSetAssignment WHERE AssigneeId = ${quote(identity.userId)}`,
  );
  const has = (name: string) => assignments.some((a) => a.PermissionSet?.[name] === true);
  const permissions = {
    modifyAllData: has('PermissionsModifyAllData'),
    customizeApplication: has('PermissionsCustomizeApplication'),
    manageProfilesAndPermissionSets: has('PermissionsManageProfilesPermissionsets'),
  };
  const { body } = await connection.rest<{
    sobjects: { name: string; queryable: boolean; updateable: boolean }[];
  }>('GET', '/sobjects', { operation: 'describe' });
  const access = (name: string) => {
    const entry = body.sobjects.find((s) => s.name === name);
    return { read: entry?.queryable === true, edit: entry?.updateable === true };
  };
  const objects = {
    Account: access('Account'),
    Contact: access('Contact'),
    Lead: access('Lead'),
    Opportunity: access('Opportunity'),
  };
  const missing = [
    ...(permissions.modifyAllData ? [] : ['Modify All Data']),
    ...(permissions.customizeApplication ? [] : ['Customize Application']),
    ...(permissions.manageProfilesAndPermissionSets ? [] : ['Manage Profiles and Permission Sets']),
    ...(['Account', 'Contact', 'Lead'] as const)
      .filter((o) => !objects[o].edit)
      .map((o) => `Edit on ${o}`),
    ...(objects.Opportunity.read ? [] : ['Read on Opportunity']),
    ...(profile ? [] : ['Read on the profile through the Tooling API']),
  ];
  return {
    identity,
    profileId: user.ProfileId,
    profileName: user.Profile?.Name ?? '',
    profileFullName: profile?.FullName ?? '',
    permissions,
    objects,
    missing,
  };
}

/** A field field setup will create or change, and why. */
export interface FieldChange {
  readonly field: CustomFieldSpec;
  /**
   * `missing`: the org lacks the field; `changed`: it differs from the catalogue and is converted
   * (only with `convertExistingFields`).
   */
  readonly reason: 'missing' | 'changed';
  /** What differs (`type`, `length`, `precision/scale`, `label`); empty for a missing field. */
  readonly differences: readonly string[];
}

/** What field setup would do: fields to upsert, grants to give, or nothing. */
export interface FieldSetupPlan {
  /** Fields to upsert (missing, or converted when told to), in catalogue order. */
  readonly upserts: readonly FieldChange[];
  /**
   * Fields the org has with another type, length or precision, left as they are (without
   * `convertExistingFields`): each with what converting it would cost.
   */
  readonly left: readonly ExistingField[];
  /** Fields the org has under another label only: never rewritten for that. */
  readonly relabelled: readonly ExistingField[];
  /** Fields whose read+edit must be granted (on the profile, or on the permission set). */
  readonly grants: readonly CustomFieldSpec[];
  readonly profileFullName: string;
  /**
   * With `permissionSet`: its name, whether it exists, and whether it is assigned to the
   * connecting user (the grants then go to it, not to the profile).
   */
  readonly permissionSet?: {
    readonly name: string;
    readonly id: string | undefined;
    readonly assigned: boolean;
  };
  /** True when nothing would change and no field is left. */
  readonly upToDate: boolean;
}

/** The fields defined on `object`, hidden ones included (one Tooling query). */
async function fieldDefinitions(
  connection: SalesforceConnection,
  object: CrmObject,
): Promise<FieldDefinition[]> {
  return queryAll<FieldDefinition>(
    connection,
    `SELECT QualifiedApiName, Label, DataType, Length, Precision, Scale FROM FieldDefinition WHERE EntityDefinition.QualifiedApiName = ${quote(object)}`,
    { tooling: true },
  );
}

/** Compares the org with the catalogue (or `fields`): what field setup would change. */
export interface FieldSetupOptions {
  readonly fields?: readonly CustomFieldSpec[];
  /**
   * Grant read and edit through a permission set of this API name (created or updated, then
   * assigned to the connecting user) instead of on the user's profile.
   */
  readonly permissionSet?: string | undefined;
  /**
   * Convert service fields the org has with another type, length or precision (read first, so
   * what the admin set is sent back); without it they are left and reported.
   */
  readonly convertExistingFields?: boolean;
}

/** A permission set's API name: a letter, then letters, digits and underscores. */
function checkPermissionSetName(name: string): void {
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(name) || name.length > 80)
    throw new SalesforceError(
      'invalid_options',
      `${JSON.stringify(name)} is not a permission set API name (a letter, then letters, digits and underscores, at most 80)`,
    );
}

/** The permission set named `name` and whether `userId` holds it (two queries). */
async function permissionSetState(
  connection: SalesforceConnection,
  name: string,
  userId: string,
): Promise<NonNullable<FieldSetupPlan['permissionSet']>> {
  const [set] = await queryAll<{ Id: string }>(
    connection,
    `SELECT Id FROM PermissionSet WHERE Name = ${quote(name)} AND IsOwnedByProfile = false`,
  );
  const assigned =
    set !== undefined &&
    (
      await queryAll<{ Id: string }>(
        connection,
        `SELECT Id FROM PermissionSetAssignment WHERE AssigneeId = ${quote(userId)} AND PermissionSetId = ${quote(set.Id)}`,
      )
    ).length > 0;
  return { name, id: set?.Id, assigned };
}

/**
 * Compares the org's fields and grants with the catalogue and says what `setUpFields` would change,
 * without changing anything.
 */
export async function planFieldSetup(
  connection: SalesforceConnection,
  options: FieldSetupOptions & { readonly preflight?: Preflight } = {},
): Promise<FieldSetupPlan> {
  if (options.permissionSet !== undefined) checkPermissionSetName(options.permissionSet);
  const fields = options.fields ?? customFields;
  const check = options.preflight ?? (await preflight(connection));
  const objects = [...new Set(fields.map((f) => f.object))];
  const defined = new Map<CrmObject, FieldDefinition[]>();
  for (const object of objects) defined.set(object, await fieldDefinitions(connection, object));
  const upserts: FieldChange[] = [];
  const left: ExistingField[] = [];
  const relabelled: ExistingField[] = [];
  for (const field of fields) {
    const definition = defined
      .get(field.object)
      ?.find((f) => f.QualifiedApiName.toLowerCase() === field.apiName.toLowerCase());
    const existing = definition && compareExisting(field, definition);
    if (!definition) upserts.push({ field, reason: 'missing', differences: [] });
    else if (!existing) continue;
    else if (existing.differences.every((d) => d === 'label')) relabelled.push(existing);
    else if (options.convertExistingFields)
      upserts.push({ field, reason: 'changed', differences: existing.differences });
    else left.push(existing);
  }
  const set =
    options.permissionSet === undefined
      ? undefined
      : await permissionSetState(connection, options.permissionSet, check.identity.userId);
  const holder = set
    ? set.id === undefined
      ? undefined
      : `ParentId = ${quote(set.id)}`
    : `Parent.ProfileId = ${quote(check.profileId)}`;
  const permissions =
    objects.length === 0 || holder === undefined
      ? []
      : await queryAll<{
          Field: string;
          PermissionsRead: boolean;
          PermissionsEdit: boolean;
        }>(
          connection,
          `SELECT Field, PermissionsRead, PermissionsEdit FROM FieldPermissions WHERE ${holder} AND SobjectType IN (${objects.map(quote).join(', ')})`,
        );
  const granted = new Set(
    permissions
      .filter((p) => p.PermissionsRead && p.PermissionsEdit)
      .map((p) => p.Field.toLowerCase()),
  );
  // A field left as it is is not the service's to grant.
  const notLeft = new Set(left.map((l) => l.field.fullName));
  const grants = fields.filter(
    (f) => !granted.has(f.fullName.toLowerCase()) && !notLeft.has(f.fullName),
  );
  return {
    upserts,
    left,
    relabelled,
    grants,
    profileFullName: check.profileFullName,
    ...(set ? { permissionSet: set } : {}),
    upToDate:
      upserts.length === 0 && left.length === 0 && grants.length === 0 && set?.assigned !== false,
  };
}

/** The outcome of one field's upsert or grant. */
export interface FieldResult {
  readonly fullName: string;
  readonly ok: boolean;
  /** true: created, false: updated, null: permission grant (no such flag). */
  readonly created: boolean | null;
  readonly errors: readonly MetadataError[];
}

/** What `setUpFields` did, per field, and the calls it made. */
export interface FieldSetupResult {
  readonly plan: FieldSetupPlan;
  /** One entry per upserted field. */
  readonly fields: readonly FieldResult[];
  /** One entry per field granted on the profile. */
  readonly grants: readonly FieldResult[];
  /** True when the run changed nothing (the org was already set up). */
  readonly unchanged: boolean;
  /**
   * With a permission set: its assignment to the connecting user (`created` false when it was
   * assigned already).
   */
  readonly assignment?: {
    readonly ok: boolean;
    readonly created: boolean;
    readonly errors: readonly MetadataError[];
  };
  /** True when every upsert, grant and the assignment succeeded. */
  readonly ok: boolean;
  readonly calls: {
    readonly upsertMetadata: number;
    readonly updateMetadata: number;
    readonly readMetadata: number;
  };
}

/**
 * Runs field setup: permission check (throws `SalesforcePermissionError` with the remedy),
 * upserts of missing fields (and, with `convertExistingFields`, of fields to convert, each read
 * first) in calls of at most 10, then one profile update granting read and edit on the fields
 * that lack it. Failures are reported per field in the result; fields left in `plan.left`.
 */
export async function setUpFields(
  connection: SalesforceConnection,
  options: FieldSetupOptions & { readonly dryRun?: boolean } = {},
): Promise<FieldSetupResult> {
  const check = await preflight(connection);
  if (check.missing.length > 0)
    throw new SalesforcePermissionError(check.missing, PERMISSION_REMEDY);
  const plan = await planFieldSetup(connection, { ...options, preflight: check });
  const calls = { upsertMetadata: 0, updateMetadata: 0, readMetadata: 0 };
  if (options.dryRun || plan.upToDate) {
    return { plan, fields: [], grants: [], unchanged: plan.upToDate, ok: true, calls };
  }
  const components = await upsertComponents(connection, plan.upserts, calls);
  // A field to convert that readMetadata did not return is not sent: its settings would be lost.
  const unread = plan.upserts.filter(
    (u) => u.reason === 'changed' && !components.has(u.field.fullName),
  );
  const fieldResults: FieldResult[] = unread.map((u) => ({
    fullName: u.field.fullName,
    ok: false,
    created: false,
    errors: [
      {
        statusCode: '',
        message: 'not converted: readMetadata did not return it, so its settings could not be kept',
        fields: [],
      },
    ],
  }));
  const upsertFields = plan.upserts
    .map((u) => u.field)
    .filter((f) => !unread.some((u) => u.field === f));
  for (const batch of chunk(upsertFields, METADATA_BATCH_LIMIT)) {
    const results = await connection.metadata(
      'upsert',
      'CustomField',
      batch.map((f) => components.get(f.fullName) ?? customFieldComponent(f)),
    );
    calls.upsertMetadata += 1;
    for (const r of results) {
      fieldResults.push({
        fullName: r.fullName,
        ok: r.success,
        created: r.created,
        errors: r.errors,
      });
    }
  }
  const failed = new Set(fieldResults.filter((r) => !r.ok).map((r) => r.fullName));
  const toGrant = [...new Set([...plan.grants, ...upsertFields])].filter(
    (f) => !failed.has(f.fullName),
  );
  const grants: FieldResult[] = [];
  const set = plan.permissionSet;
  if (set) {
    // The set holds the service's fields only: sent whole, so an upsert never narrows it.
    const left = new Set(plan.left.map((l) => l.field.fullName));
    const all = (options.fields ?? customFields).filter(
      (f) => !failed.has(f.fullName) && !left.has(f.fullName),
    );
    if (toGrant.length > 0 || set.id === undefined) {
      const [saved] = await connection.metadata('upsert', 'PermissionSet', [
        permissionSetComponent(set.name, all),
      ]);
      calls.upsertMetadata += 1;
      grants.push(...grantResults(toGrant, saved));
    }
  } else if (toGrant.length > 0) {
    const [profile] = await connection.metadata('update', 'Profile', [
      profileGrantComponent(plan.profileFullName, toGrant),
    ]);
    calls.updateMetadata += 1;
    grants.push(...grantResults(toGrant, profile));
  }
  const assignment = set && !set.assigned ? await assign(connection, set.name) : undefined;
  const ok =
    fieldResults.every((r) => r.ok) && grants.every((g) => g.ok) && assignment?.ok !== false;
  return {
    plan,
    fields: fieldResults,
    grants,
    ...(assignment ? { assignment } : {}),
    unchanged: false,
    ok,
    calls,
  };
}

/**
 * The components converting the `changed` fields: each read first (readMetadata, at most 10 a
 * call), so the upsert, which replaces the component, sends back what the admin set.
 * https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_readMetadata.htm
 */
async function upsertComponents(
  connection: SalesforceConnection,
  upserts: readonly FieldChange[],
  calls: { readMetadata: number },
): Promise<Map<string, Record<string, unknown>>> {
  const changed = upserts.filter((u) => u.reason === 'changed').map((u) => u.field);
  const components = new Map<string, Record<string, unknown>>();
  for (const batch of chunk(changed, METADATA_BATCH_LIMIT)) {
    const read = await connection.readMetadata(
      'CustomField',
      batch.map((f) => f.fullName),
    );
    calls.readMetadata += 1;
    for (const field of batch) {
      const held = read.find(
        (r) => String(r.fullName).toLowerCase() === field.fullName.toLowerCase(),
      );
      if (held) components.set(field.fullName, convertingComponent(field, held));
    }
  }
  return components;
}

/**
 * The grants a Profile's or PermissionSet's SaveResult decides: success=false fails every grant
 * it carried, whether or not an error names the field (INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY
 * names none).
 */
function grantResults(
  fields: readonly CustomFieldSpec[],
  saved: { readonly success: boolean; readonly errors: readonly MetadataError[] } | undefined,
): FieldResult[] {
  const errors = saved?.errors ?? [];
  return fields.map((field) => {
    const named = errors.filter((e) => e.message.includes(field.fullName));
    const ok = saved?.success === true && named.length === 0;
    return {
      fullName: field.fullName,
      ok,
      created: null,
      errors: ok ? [] : named.length > 0 ? named : errors,
    };
  });
}

/** Assigns the permission set `name` to the connecting user (a PermissionSetAssignment). */
async function assign(
  connection: SalesforceConnection,
  name: string,
): Promise<NonNullable<FieldSetupResult['assignment']>> {
  const { userId } = await connection.identity();
  const [set] = await queryAll<{ Id: string }>(
    connection,
    `SELECT Id FROM PermissionSet WHERE Name = ${quote(name)} AND IsOwnedByProfile = false`,
  );
  if (!set) {
    const message = `Permission set ${name} was not saved: nothing to assign`;
    return {
      ok: false,
      created: false,
      errors: [{ statusCode: 'NOT_FOUND', message, fields: [] }],
    };
  }
  try {
    await connection.rest('POST', '/sobjects/PermissionSetAssignment', {
      body: { AssigneeId: userId, PermissionSetId: set.Id },
      operation: 'create',
    });
    return { ok: true, created: true, errors: [] };
  } catch (error) {
    // Assigned meanwhile (by an admin, or a run that stopped before its answer): done.
    if (error instanceof SalesforceError && error.errorCode === 'DUPLICATE_VALUE')
      return { ok: true, created: false, errors: [] };
    if (error instanceof SalesforceError && error.code === 'request_failed')
      return {
        ok: false,
        created: false,
        errors: [{ statusCode: error.errorCode ?? '', message: error.message, fields: [] }],
      };
    throw error;
  }
}
