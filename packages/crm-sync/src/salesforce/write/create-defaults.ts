/**
 * Constant values and a record type for the records a sync creates, per object (`createDefaults`):
 * what an org's record types, required fields and create-time validation rules ask of every new
 * record (a Lead's LeadSource, an Industry a validation rule requires). A value the plan gives
 * itself wins over the constant. Checked against describe before the run writes anything: a
 * field the user cannot create, or a record type that is not the object's, is an error then.
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_sobject_describe.htm
 */
import type { CrmObject, FieldValue } from '../../model/objects.js';
import type { PlanStep } from '../../plan/types.js';
import type { SalesforceConnection } from '../connection/connection.js';
import { SalesforceError } from '../errors.js';
import type { DescribeField } from '../read/reads.js';

/** What every record of one object a sync creates gets. */
export interface CreateDefaults {
  /** The record type of the new records (`012...`); none: the user's default record type. */
  readonly recordTypeId?: string;
  /** Field values the new records get unless the plan gives the field a value. */
  readonly fields?: Readonly<Record<string, FieldValue>>;
}

/** `CreateDefaults` by object, e.g. `{ Lead: { fields: { LeadSource: 'Service' } } }`. */
export type CreateDefaultsByObject = Readonly<Partial<Record<CrmObject, CreateDefaults>>>;

/** `step` with its object's defaults beneath its own values (only a create changes). */
export function withCreateDefaults(step: PlanStep, defaults: CreateDefaultsByObject): PlanStep {
  if (step.type !== 'create') return step;
  const own = defaults[step.object];
  if (own === undefined) return step;
  const recordType = own.recordTypeId === undefined ? {} : { RecordTypeId: own.recordTypeId };
  return { ...step, fields: { ...recordType, ...own.fields, ...step.fields } };
}

interface Described {
  readonly fields: readonly DescribeField[];
  readonly recordTypeInfos?: readonly {
    readonly recordTypeId: string;
    readonly available?: boolean;
  }[];
}

/** The problems of one object's defaults against its describe. */
function problems(object: CrmObject, own: CreateDefaults, described: Described): string[] {
  const found: string[] = [];
  const fields = new Map(described.fields.map((f) => [f.name.toLowerCase(), f]));
  for (const name of Object.keys(own.fields ?? {})) {
    const field = fields.get(name.toLowerCase());
    if (!field) found.push(`${object}.${name} is not a field the integration user can see`);
    else if (field.createable === false)
      found.push(`${object}.${name} is not writable on create for the integration user`);
  }
  const id = own.recordTypeId;
  if (id !== undefined) {
    const types = (described.recordTypeInfos ?? []).filter((t) => t.available !== false);
    // Ids are compared on their 15 case-sensitive characters: an 18-character id adds a suffix.
    if (!types.some((t) => t.recordTypeId.slice(0, 15) === id.slice(0, 15)))
      found.push(
        `${id} is not a record type of ${object} available to the integration user (${types.map((t) => t.recordTypeId).join(', ') || 'it has none'})`,
      );
  }
  return found;
}

/**
 * Defaults that passed, per connection: `service-crm sync` checks them before it reads the org, so
 * a bad setting stops the run early, and `applyPlan` checks what it is given for callers that use it
 * alone; the same object on the same connection is described once.
 */
const passed = new WeakMap<SalesforceConnection, WeakSet<CreateDefaultsByObject>>();

/**
 * Checks `defaults` against each object's describe; throws `SalesforceError` (`invalid_options`)
 * naming every problem.
 */
export async function checkCreateDefaults(
  connection: SalesforceConnection,
  defaults: CreateDefaultsByObject,
): Promise<void> {
  if (passed.get(connection)?.has(defaults)) return;
  const found: string[] = [];
  for (const [object, own] of Object.entries(defaults) as [CrmObject, CreateDefaults][]) {
    const { body } = await connection.rest<Described>('GET', `/sobjects/${object}/describe`, {
      operation: 'describe',
    });
    found.push(...problems(object, own, body));
  }
  if (found.length > 0)
    throw new SalesforceError('invalid_options', `createDefaults: ${found.join('; ')}`);
  const checked = passed.get(connection) ?? new WeakSet();
  checked.add(defaults);
  passed.set(connection, checked);
}
