/** The CRM objects the service writes to (spec section 2.5). */
export const crmObjects = ['Account', 'Contact', 'Lead'] as const;
export type CrmObject = (typeof crmObjects)[number];

/** The objects the service reads (spec section 2.6). */
export type QueryObject = CrmObject | 'Opportunity';

export function isCrmObject(value: unknown): value is CrmObject {
  return typeof value === 'string' && (crmObjects as readonly string[]).includes(value);
}

/** A field value as the REST API takes it: text, number, ISO 8601 DateTime text, or null. */
export type FieldValue = string | number | boolean | null;
export type FieldValues = Readonly<Record<string, FieldValue>>;
