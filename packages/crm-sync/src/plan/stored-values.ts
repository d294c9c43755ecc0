/**
 * A planned value compared with what the org already holds, in the form Salesforce stores it:
 * so a field that would be rewritten with the value it already has is left out of the write.
 */
import type { FieldMetadata } from '../model/catalogue.js';
import type { FieldValue } from '../model/objects.js';
import type { CrmFieldValues, CrmSnapshot } from './types.js';

/** Salesforce answers DateTimes as `2026-03-02T09:00:00.000+0000`: read as an instant. */
export function instantOf(value: string): number {
  return Date.parse(value.replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
}

/**
 * The value as the org would store it. DateTimes keep whole seconds ("full timestamps with a
 * precision of one second", Primitive Data Types in the object reference); numbers are rounded
 * to the field's scale; an empty text is stored as null. Texts (LongTextArea included) are
 * stored as written: the planner already cuts them to the field's length.
 */
function stored(value: unknown, metadata: FieldMetadata | undefined): unknown {
  if (value === undefined || value === null || value === '') return null;
  if (metadata?.type === 'DateTime' && typeof value === 'string') {
    const instant = instantOf(value);
    return Number.isNaN(instant) ? value : Math.floor(instant / 1000);
  }
  if (metadata?.type === 'Number' && typeof value === 'number') {
    return Number(value.toFixed(metadata.scale));
  }
  return value;
}

/**
 * True when writing `planned` to a field holding `current` would change nothing. Without
 * `metadata` (a standard or mapped field the catalogue does not describe) values must be equal,
 * an empty text and null counting as the same.
 */
export function holdsValue(
  planned: FieldValue,
  current: unknown,
  metadata: FieldMetadata | undefined,
): boolean {
  return stored(planned, metadata) === stored(current, metadata);
}

/** The Accounts, Contacts and Leads of `crm` by record id: the values each record holds. */
export function recordsById(crm: CrmSnapshot): Map<string, CrmFieldValues> {
  return new Map([...crm.accounts, ...crm.contacts, ...crm.leads].map((r) => [r.Id, r]));
}
