/**
 * Property-sync mappings: destination keys an organisation adds to the catalogue's own fields.
 */
import {
  customFields,
  type FieldSource,
  fieldSources,
  type SyncTrigger,
  sourceFitsObject,
  syncTriggers,
} from '../model/catalogue.js';
import { CrmSyncError } from '../model/errors.js';
import { type CrmObject, crmObjects, isCrmObject } from '../model/objects.js';

/** Write the value `source` to the custom field `apiName` of `object`, per `trigger`. */
export interface FieldMapping {
  readonly object: CrmObject;
  readonly apiName: `${string}__c`;
  readonly source: FieldSource;
  readonly trigger: SyncTrigger;
}

// Salesforce custom field names: a letter first, letters/digits/single underscores, `__c` last,
// 40 characters at most in all (a namespace prefix `ns__` is allowed in front).
const CUSTOM_FIELD =
  /^(?:[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*__)?[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*__c$/;

function problemsOf(mapping: unknown, at: string): string[] {
  if (typeof mapping !== 'object' || mapping === null) return [`${at}: expected an object`];
  const { object, apiName, source, trigger } = mapping as Record<string, unknown>;
  const problems: string[] = [];
  if (!isCrmObject(object)) {
    problems.push(`${at}.object: ${JSON.stringify(object)} is not one of ${crmObjects.join(', ')}`);
  }
  if (typeof apiName !== 'string' || !CUSTOM_FIELD.test(apiName) || apiName.length > 40) {
    problems.push(
      `${at}.apiName: ${JSON.stringify(apiName)} is not a custom field API name (letters, digits and single underscores, ending in __c, at most 40 characters)`,
    );
  }
  if (!fieldSources.includes(source as FieldSource)) {
    problems.push(
      `${at}.source: ${JSON.stringify(source)} is not a known value (${fieldSources.join(', ')})`,
    );
  } else if (isCrmObject(object) && !sourceFitsObject(source as FieldSource, object)) {
    problems.push(`${at}.source: ${String(source)} has no value for ${object} records`);
  }
  if (!syncTriggers.includes(trigger as SyncTrigger)) {
    problems.push(
      `${at}.trigger: ${JSON.stringify(trigger)} is not one of ${syncTriggers.join(', ')}`,
    );
  }
  return problems;
}

/**
 * Validates an organisation's property-sync mappings. Returns them unchanged when every one is
 * good; otherwise throws one `CrmSyncError` (`invalid_mapping`) listing every problem.
 * A destination already written by the catalogue, or named twice, is rejected.
 */
export function defineFieldMappings(mappings: readonly FieldMapping[]): readonly FieldMapping[] {
  if (!Array.isArray(mappings)) {
    throw new CrmSyncError('invalid_mapping', 'Field mappings must be an array');
  }
  const problems: string[] = [];
  const seen = new Set(customFields.map((f) => f.fullName.toLowerCase()));
  mappings.forEach((mapping, index) => {
    const at = `mappings[${index}]`;
    const own = problemsOf(mapping, at);
    problems.push(...own);
    if (own.length > 0) return;
    const key = `${mapping.object}.${mapping.apiName}`.toLowerCase();
    if (seen.has(key)) {
      problems.push(
        `${at}: ${mapping.object}.${mapping.apiName} is already written by the catalogue or an earlier mapping`,
      );
    }
    seen.add(key);
  });
  if (problems.length > 0) {
    throw new CrmSyncError('invalid_mapping', 'Invalid field mappings', problems);
  }
  return Object.freeze([...mappings]);
}
