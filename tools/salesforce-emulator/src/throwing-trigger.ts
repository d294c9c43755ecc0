// A customer's before-insert/before-update trigger on Account, Contact and Lead that throws an
// unhandled exception on some records. "If a trigger ever throws an unhandled exception, all
// records are marked with an error and no further processing takes place": every record the
// trigger ran on together fails, not only the one it threw on.
// https://developer.salesforce.com/docs/atlas.en-us.apexcode.meta/apexcode/apex_triggers_exceptions.htm
// The error is CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY with the trigger's name, its event and the
// exception ("<Trigger>: execution of BeforeInsert caused by: System.<Exception>: ...").
// https://docs.gearset.com/en/articles/2860961-resolving-data-deployment-errors-cannot_insert_update_activate_entity
// https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode

/** What the trigger does with a record: passes it, or throws one of these. */
export type TriggerThrow = 'exception' | 'unknown' | 'cpuLimit';

/** Which records the trigger throws on (default: `refusedByName`). */
export type TriggerPredicate = (
  object: string,
  record: Readonly<Record<string, unknown>>,
) => TriggerThrow | false;

/** The text a record's Name or LastName holds for the default trigger to throw on it. */
export const TRIGGER_REFUSES = '[trigger-refuses]';

const TRIGGERED = new Set(['Account', 'Contact', 'Lead']);

/** The default predicate: an Account, Contact or Lead whose Name / LastName holds the text. */
export const refusedByName: TriggerPredicate = (object, record) => {
  if (!TRIGGERED.has(object)) return false;
  const name = String(record.Name ?? record.LastName ?? '');
  return name.includes(TRIGGER_REFUSES) ? 'exception' : false;
};

/** The option: on (the default predicate), off, or a predicate of the test's own. */
export type ThrowingTriggerOption = boolean | TriggerPredicate | undefined;

/** The option's predicate, or undefined when the org has no such trigger. */
export function triggerPredicate(option: ThrowingTriggerOption): TriggerPredicate | undefined {
  if (option === true) return refusedByName;
  return typeof option === 'function' ? option : undefined;
}

/** What the trigger's throw makes of each record of its invocation. */
function errorOf(object: string, event: 'BeforeInsert' | 'BeforeUpdate', thrown: TriggerThrow) {
  const trigger = `Service${object}Trigger`;
  if (thrown === 'unknown') {
    // An error inside the platform while the trigger runs; Salesforce names no cause.
    // https://developer.salesforce.com/docs/atlas.en-us.api.meta/api/sforce_api_calls_concepts_core_data_objects.htm#statuscode
    return { statusCode: 'UNKNOWN_EXCEPTION', message: 'An unexpected error occurred.' };
  }
  // The CPU limit cannot be caught: it ends the transaction like any unhandled exception.
  // https://developer.salesforce.com/docs/atlas.en-us.apexcode.meta/apexcode/apex_gov_limits.htm
  const cause =
    thrown === 'cpuLimit'
      ? 'System.LimitException: Apex CPU time limit exceeded'
      : 'System.NullPointerException: Attempt to de-reference a null object';
  return {
    statusCode: 'CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY',
    message: `${trigger}: execution of ${event} caused by: ${cause}: Trigger.${trigger}: line 3, column 1`,
  };
}

/**
 * The error every record of one trigger invocation gets (`records` as the trigger sees them,
 * stored values with the new ones over them), or undefined when it throws on none.
 */
export function triggerError(
  predicate: TriggerPredicate | undefined,
  object: string,
  event: 'BeforeInsert' | 'BeforeUpdate',
  records: readonly Readonly<Record<string, unknown>>[],
): { statusCode: string; message: string; fields: string[] } | undefined {
  if (!predicate) return undefined;
  for (const record of records) {
    const thrown = predicate(object, record);
    if (thrown) return { ...errorOf(object, event, thrown), fields: [] };
  }
  return undefined;
}

/**
 * Records a trigger runs on together: a Bulk API job's data is processed in chunks of 200
 * records, as is an sObject Collections request's run of one type.
 * https://developer.salesforce.com/docs/atlas.en-us.api_asynch.meta/api_asynch/asynch_api_concepts_limits.htm
 * https://developer.salesforce.com/docs/atlas.en-us.api_rest.meta/api_rest/resources_composite_sobjects_collections_update.htm
 */
export const TRIGGER_CHUNK = 200;
