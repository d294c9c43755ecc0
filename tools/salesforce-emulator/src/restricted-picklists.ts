// A restricted picklist takes only the values of its list: any other value is refused with
// INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST ("bad value for restricted picklist field") and the
// record is not saved. A field is restricted by its own definition, in every org.
// https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
// https://help.salesforce.com/s/articleView?id=000386448&type=1
import type { Org } from './org.ts';

/** The first value of `values` its restricted picklist does not list, as the org's error. */
export function restrictedRefusal(org: Org, object: string, values: Record<string, unknown>) {
  for (const [name, value] of Object.entries(values)) {
    const field = org.fields.get(object)?.get(name);
    if (!field?.restrictedPicklist || value === null || value === undefined || value === '')
      continue;
    if (field.picklistValues?.some((entry) => entry.active && entry.value === value)) continue;
    return {
      statusCode: 'INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST',
      message: `${field.label}: bad value for restricted picklist field: ${String(value)}`,
      fields: [name],
    };
  }
  return undefined;
}
