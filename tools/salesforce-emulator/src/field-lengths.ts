// Text longer than its field allows is refused, as Salesforce refuses it: STRING_TOO_LONG naming
// the field and its length, the record not written.
// https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
import type { Org } from './org.ts';

const TEXT_TYPES = new Set(['string', 'textarea', 'url', 'email', 'phone']);

/** The first value in `values` longer than its text field's length, as the org's error. */
export function tooLong(org: Org, object: string, values: Record<string, unknown>) {
  for (const [name, value] of Object.entries(values)) {
    const field = org.fields.get(object)?.get(name);
    if (!field || !TEXT_TYPES.has(field.type) || field.length <= 0) continue;
    if (typeof value !== 'string' || value.length <= field.length) continue;
    return {
      statusCode: 'STRING_TOO_LONG',
      message: `${field.label}: data value too large: ${value.slice(0, 40)}... (max length=${field.length})`,
      fields: [name],
    };
  }
  return undefined;
}
