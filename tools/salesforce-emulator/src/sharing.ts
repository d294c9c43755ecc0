// Limited sharing: Private organization-wide defaults on Account, Contact and Lead. A record
// owned by another user is invisible to the API user, as in the user interface ("The API
// respects object-level and field-level security... and sharing"), unless the user has
// "View All Data" or the object's "View All" (ObjectPermissions.PermissionsViewAllRecords).
// https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/obj_ref_data_access.htm
// https://help.salesforce.com/s/articleView?id=sf.sharing_model_fields.htm
import type { FieldDescribe, Org, SfRecord } from './org.ts';

/** The objects whose organization-wide default is Private in the emulated org. */
const PRIVATE_OBJECTS = new Set(['Account', 'Contact', 'Lead']);

const permission = (name: string, type: FieldDescribe['type']): FieldDescribe => ({
  name,
  label: name,
  type,
  length: type === 'string' ? 40 : 0,
  precision: 0,
  scale: 0,
  custom: false,
  nillable: false,
  createable: name !== 'Id',
  updateable: name !== 'Id',
  extraTypeInfo: null,
});

/**
 * The standard objects the sync asks about access with: ObjectPermissions (one row per
 * permission set and object) and PermissionSet.PermissionsViewAllData, which Modify All Data
 * turns on with it (a permission set's Modify All Data needs View All Data).
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_objectpermissions.htm
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_permissionset.htm
 */
export function installAccessObjects(org: Org, limitedSharing: boolean): void {
  org.limitedSharing = limitedSharing;
  installOrganization(org);
  org.fields.set(
    'ObjectPermissions',
    new Map(
      (
        [
          ['Id', 'id'],
          ['ParentId', 'reference'],
          ['SobjectType', 'string'],
          ['PermissionsRead', 'boolean'],
          ['PermissionsViewAllRecords', 'boolean'],
          ['PermissionsModifyAllRecords', 'boolean'],
        ] as const
      ).map(([name, type]) => [name, permission(name, type)]),
    ),
  );
  org.records.set('ObjectPermissions', new Map());
  org.fields.get('PermissionSet')?.set('PermissionsViewAllData', {
    ...permission('PermissionsViewAllData', 'boolean'),
  });
  for (const set of org.table('PermissionSet').values())
    set.PermissionsViewAllData ??= set.PermissionsModifyAllData === true;
}

/**
 * The Organization record's organization-wide defaults of the three objects: `None` (Private)
 * with limited sharing, `Edit` (Public Read/Write) otherwise.
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_organization.htm
 */
function installOrganization(org: Org): void {
  const access = org.limitedSharing ? 'None' : 'Edit';
  const names = ['DefaultAccountAccess', 'DefaultContactAccess', 'DefaultLeadAccess'];
  org.fields.set(
    'Organization',
    new Map([
      ['Id', permission('Id', 'id')],
      ...names.map((n): [string, FieldDescribe] => [n, permission(n, 'picklist')]),
    ]),
  );
  org.records.set(
    'Organization',
    new Map([[org.orgId, { Id: org.orgId, ...Object.fromEntries(names.map((n) => [n, access])) }]]),
  );
}

/** The permission sets assigned to the org's user (its profile's own included). */
function assignedSets(org: Org): SfRecord[] {
  const ids = new Set(
    [...org.table('PermissionSetAssignment').values()]
      .filter((a) => a.AssigneeId === org.userId)
      .map((a) => a.PermissionSetId),
  );
  return [...org.table('PermissionSet').values()].filter((set) => ids.has(set.Id));
}

/** Whether the org's user sees every record of `object`: View All Data or the object's View All. */
export function seesAll(org: Org, object: string): boolean {
  const sets = assignedSets(org);
  if (sets.some((s) => s.PermissionsViewAllData === true || s.PermissionsModifyAllData === true))
    return true;
  const ids = new Set(sets.map((s) => s.Id));
  return [...org.table('ObjectPermissions').values()].some(
    (p) =>
      ids.has(p.ParentId as string) &&
      p.SobjectType === object &&
      (p.PermissionsViewAllRecords === true || p.PermissionsModifyAllRecords === true),
  );
}

/**
 * Whether `record` of `object` is hidden from the org's user by the sharing model: with limited
 * sharing on, a record of a Private object owned by someone else, unless the user sees all.
 */
export function hiddenBySharing(org: Org, object: string, record: SfRecord): boolean {
  if (!org.limitedSharing || !PRIVATE_OBJECTS.has(object)) return false;
  return record.OwnerId !== org.userId && !seesAll(org, object);
}

/**
 * An update of a record the user cannot see: refused with INSUFFICIENT_ACCESS_OR_READONLY
 * ("You can't perform the specified action because you don't have sufficient permissions").
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
 */
export function insufficientAccess(id: string) {
  return {
    statusCode: 'INSUFFICIENT_ACCESS_OR_READONLY',
    message: `insufficient access rights on object id: ${id}`,
    fields: [] as string[],
  };
}

/** Gives the user's profile the object's View All (a test's or a seed's set-up). */
export function grantViewAll(org: Org, object: string): void {
  const profileSet = assignedSets(org).find((s) => s.IsOwnedByProfile === true);
  if (!profileSet) throw new Error('the user has no profile permission set');
  org.insert('ObjectPermissions', {
    ParentId: profileSet.Id,
    SobjectType: object,
    PermissionsRead: true,
    PermissionsViewAllRecords: true,
    PermissionsModifyAllRecords: false,
  });
}
