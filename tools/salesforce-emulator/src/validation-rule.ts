// A create-time validation rule of the customer's: a Lead needs an Industry
// (`AND(ISNEW(), ISBLANK(TEXT(Industry)))`, its error shown at the Industry field). A record that
// fails it is refused with FIELD_CUSTOM_VALIDATION_EXCEPTION and the rule's error message.
// https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
// https://help.salesforce.com/s/articleView?id=sf.fields_defining_field_validation_rules.htm
import { customFieldDescribe, type Org } from './org.ts';

/** The rule's error message, as the admin wrote it. */
export const VALIDATION_MESSAGE = 'Choose an Industry for every new Lead.';

/** Adds Lead's standard Industry picklist, the field the rule looks at, unless the org has it. */
export function installValidationRule(org: Org): void {
  const lead = org.fields.get('Lead');
  if (lead?.has('Industry')) return;
  lead?.set('Industry', {
    ...customFieldDescribe('Industry', 'Industry', 'picklist'),
    custom: false,
  });
}

/** The rule's error when a Lead is created without an Industry. */
export function failsValidation(object: string, values: Record<string, unknown>) {
  if (object !== 'Lead') return undefined;
  const industry = values.Industry;
  if (industry !== undefined && industry !== null && industry !== '') return undefined;
  return {
    statusCode: 'FIELD_CUSTOM_VALIDATION_EXCEPTION',
    message: VALIDATION_MESSAGE,
    fields: ['Industry'],
  };
}
