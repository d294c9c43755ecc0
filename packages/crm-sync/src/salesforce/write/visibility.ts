/**
 * Whether the integration user sees every record of an object. The API respects sharing: a
 * record the user cannot see is absent from its reads and from the duplicate check before a
 * create, so the sync would create it again. Only "View All Data", or the object's "View All"
 * (or "Modify All", which includes it), lets the user see every record whatever the sharing
 * model (or a public organization-wide default, which shows every record to every user); without
 * it, creates of the object are refused with the remedy and updates still run. Asked once a run:
 * the org's defaults, then the user's permission sets (the profile's own included).
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/obj_ref_data_access.htm
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_objectpermissions.htm
 */
import type { CrmObject } from '../../model/objects.js';
import type { CreateStep } from '../../plan/types.js';
import type { RecordError } from '../../rest/composite.js';
import { escapeSoqlString } from '../../rest/soql.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { SalesforceError } from '../errors.js';
import { queryAll } from '../read/reads.js';

/** The status code of a create refused because the user cannot see every record of its object. */
export const CANNOT_SEE_ALL = 'CANNOT_SEE_ALL_RECORDS';

/**
 * What the user sees all records of: everything (View All Data), or these objects. `unread`: the
 * user may not read its own permissions (ObjectPermissions needs View Setup and Configuration).
 */
type Seen =
  | { readonly everything: true }
  | { readonly objects: ReadonlySet<string>; readonly unread?: true };

/**
 * The objects whose organization-wide default lets every user see every record: Public Read Only
 * (`Read`) or Read/Write (`Edit`, `ReadEditTransfer`); a Contact `ControlledByParent` follows its
 * Account. Private is `None`.
 * https://developer.salesforce.com/docs/atlas.en-us.object_reference.meta/object_reference/sforce_api_objects_organization.htm
 */
async function publicObjects(connection: SalesforceConnection): Promise<Set<string>> {
  const [org] = await queryAll<Record<string, string | null>>(
    connection,
    'SELECT DefaultAccountAccess, DefaultContactAccess, DefaultLeadAccess FROM Organization',
  );
  const open = (value: string | null | undefined) =>
    value === 'Read' || value === 'Edit' || value === 'ReadEditTransfer';
  const contact = org?.DefaultContactAccess;
  return new Set([
    ...(open(org?.DefaultAccountAccess) ? ['Account'] : []),
    ...(open(contact) || (contact === 'ControlledByParent' && open(org?.DefaultAccountAccess))
      ? ['Contact']
      : []),
    ...(open(org?.DefaultLeadAccess) ? ['Lead'] : []),
  ]);
}

async function askSeen(connection: SalesforceConnection): Promise<Seen> {
  const open = await publicObjects(connection);
  if (open.size === 3) return { objects: open };
  try {
    return await permissionsSeen(connection, open);
  } catch (error) {
    if (!(error instanceof SalesforceError) || error.code !== 'request_failed') throw error;
    return { objects: open, unread: true };
  }
}

/** What the user's permission sets let it see all of, beside the `open` objects. */
async function permissionsSeen(
  connection: SalesforceConnection,
  open: ReadonlySet<string>,
): Promise<Seen> {
  const { userId } = await connection.identity();
  const assignments = await queryAll<{
    PermissionSetId: string;
    PermissionSet: { PermissionsViewAllData?: boolean } | null;
  }>(
    connection,
    `SELECT PermissionSetId, PermissionSet.PermissionsViewAllData FROM PermissionSetAssignment WHERE AssigneeId = ${escapeSoqlString(userId)}`,
  );
  if (assignments.some((a) => a.PermissionSet?.PermissionsViewAllData === true))
    return { everything: true };
  if (assignments.length === 0) return { objects: open };
  const sets = assignments.map((a) => escapeSoqlString(a.PermissionSetId)).join(', ');
  // Modify All turns View All on with it, so one flag says both.
  const rows = await queryAll<{ SobjectType: string }>(
    connection,
    `SELECT SobjectType FROM ObjectPermissions WHERE ParentId IN (${sets}) AND SobjectType IN ('Account', 'Contact', 'Lead') AND PermissionsViewAllRecords = true`,
  );
  return { objects: new Set([...open, ...rows.map((r) => r.SobjectType)]) };
}

/** The remedy for an object the user cannot see all of (or cannot tell: `unread`). */
export function seeAllRemedy(object: CrmObject, unread = false): string {
  const tell = unread
    ? ', and View Setup and Configuration so the sync can read its permissions'
    : '';
  return `The integration user cannot see every ${object}: give it View All on ${object} (or View All Data)${tell}. Without it the sync cannot tell whether a ${object} exists and would create duplicates; ${object} creates are left out, updates still run.`;
}

/** Per run: whether the user sees every record of an object, asked once. */
export class RecordVisibility {
  readonly #connection: SalesforceConnection;
  #seen: Promise<Seen> | undefined;

  constructor(connection: SalesforceConnection) {
    this.#connection = connection;
  }

  /** Whether the user sees every `object`; if not, the remedy. */
  async seesAll(object: CrmObject): Promise<true | string> {
    this.#seen ??= askSeen(this.#connection);
    const seen = await this.#seen;
    if ('everything' in seen || seen.objects.has(object)) return true;
    return seeAllRemedy(object, seen.unread === true);
  }

  /**
   * The creates of objects the user cannot see all of, each with its refusal: they are not sent.
   */
  async refusals(steps: readonly CreateStep[]): Promise<Map<CreateStep, RecordError>> {
    const refused = new Map<CreateStep, RecordError>();
    for (const step of steps) {
      const seen = await this.seesAll(step.object);
      if (seen === true) continue;
      refused.set(step, { statusCode: CANNOT_SEE_ALL, message: seen, fields: [] });
    }
    return refused;
  }
}
