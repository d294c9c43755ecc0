/**
 * What an integrator can do about a record the org refused, by Salesforce status code: one line
 * each in the sync's summary (docs/crm-sync/errors.md, "Records the org refused").
 * https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
 */
const REMEDIES: Readonly<Record<string, string>> = {
  DUPLICATES_DETECTED:
    'the org\'s duplicate rules matched existing records; merge them, or set duplicateRules: "allowSave" to save over the rules\' alerts',
  FIELD_CUSTOM_VALIDATION_EXCEPTION:
    "a validation rule of the org refused the values; its message names the rule: ask the org's admin, or give the value it wants in the settings",
  CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY:
    "a trigger or flow of the org threw on these records; its message names it: ask the org's admin",
  STRING_TOO_LONG:
    'a value is longer than its field; shorten it in the mapping or lengthen the field',
  FIELD_INTEGRITY_EXCEPTION:
    "a value the field does not take (a country or state the org's picklists lack, a bad reference)",
  INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST:
    'a value missing from a restricted picklist; add it to the picklist or change the mapping',
  INVALID_EMAIL_ADDRESS: 'an email address the org does not take',
  REQUIRED_FIELD_MISSING:
    'the org requires a field the sync does not write; give it a value for creates in the settings',
  INSUFFICIENT_ACCESS_OR_READONLY:
    'the integration user may not edit these records; give it access (sharing, profile or permission set)',
  INSUFFICIENT_ACCESS_ON_CROSS_REFERENCE_ENTITY:
    'the integration user may not see the record these link to; give it access (sharing)',
  ENTITY_IS_DELETED: 'the record was deleted in the org; the next read leaves it out',
  UNABLE_TO_LOCK_ROW: 'another process held the record; the next run tries again',
};

/** The remedy line for records refused with `statusCode`. */
export function remedyFor(statusCode: string): string {
  return REMEDIES[statusCode] ?? "see each record's message in the --json output";
}
