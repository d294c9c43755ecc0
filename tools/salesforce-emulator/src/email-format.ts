// An email field takes only an address of the form Salesforce accepts: a local part of RFC
// characters that does not start with a dot, an `@`, and a domain of letters, digits and
// hyphens in dot-separated labels. Anything else is refused with INVALID_EMAIL_ADDRESS and the
// record is not saved.
// https://help.salesforce.com/s/articleView?id=000384328&type=1
// https://help.salesforce.com/apex/HTViewSolution?id=000001145&language=en_US
// https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
import type { Org } from './org.ts';

const ADDRESS =
  /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-][A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]*@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+$/;

/** The first email value of `values` that is not an address, as the org's error. */
export function invalidEmail(org: Org, object: string, values: Record<string, unknown>) {
  for (const [name, value] of Object.entries(values)) {
    if (org.fields.get(object)?.get(name)?.type !== 'email') continue;
    if (typeof value !== 'string' || value === '' || ADDRESS.test(value)) continue;
    const label = org.fields.get(object)?.get(name)?.label ?? name;
    return {
      statusCode: 'INVALID_EMAIL_ADDRESS',
      message: `${label}: invalid email address: ${value}`,
      fields: [name],
    };
  }
  return undefined;
}
