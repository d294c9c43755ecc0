/** The CRM objects the service writes to. */
export const crmObjects = ['Account', 'Contact', 'Lead'] as const;
/** An object the service writes to: `Account`, `Contact` or `Lead`. */
export type CrmObject = (typeof crmObjects)[number];

/** The objects the service reads. */
export type QueryObject = CrmObject | 'Opportunity';

/** Whether `value` names an object the service writes to. */
export function isCrmObject(value: unknown): value is CrmObject {
  return typeof value === 'string' && (crmObjects as readonly string[]).includes(value);
}

/** A field value as the REST API takes it: text, number, ISO 8601 DateTime text, or null. */
export type FieldValue = string | number | boolean | null;
/** Field values of one record, by API name. */
export type FieldValues = Readonly<Record<string, FieldValue>>;
