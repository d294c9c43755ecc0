/**
 * Whether the org's field can hold what a property-sync mapping writes to it: a count into a
 * number field, an instant into a Date/Time, text into a text field or a picklist that takes its
 * values. Checked against describe before a sync (`service-crm fields plan`), so a mapping to a
 * field of the wrong type is refused with its reason instead of failing every record it is on.
 */
import { customFields, type FieldSource } from '../model/catalogue.js';
import type { CrmObject } from '../model/objects.js';
import type { FieldMapping } from './field-mappings.js';

/** A field as the object's describe shows it: what fitting a value needs of it. */
export interface OrgField {
  readonly name: string;
  /** describe's type: `string`, `textarea`, `double`, `boolean`, `date`, `datetime`, `picklist`, ... */
  readonly type: string;
  readonly length?: number;
  readonly precision?: number;
  readonly scale?: number;
  readonly createable?: boolean;
  readonly updateable?: boolean;
  readonly restrictedPicklist?: boolean;
  readonly picklistValues?: readonly { readonly value: string; readonly active?: boolean }[];
}

/** A mapping whose field cannot take what the sync would write to it. */
export interface RefusedMapping {
  readonly mapping: FieldMapping;
  /** `Account.Visits__c` */
  readonly field: string;
  /** The field's type as the setup UI shows it (`Text(10)`, `Checkbox`), or `missing`. */
  readonly type: string;
  /** What the sync would write, in words: `a number (sessions)`. */
  readonly writes: string;
  readonly reason: string;
}

/** What `source` writes: a number, a date and time, or text (one of `values` when given). */
type Written =
  | { readonly kind: 'number' }
  | { readonly kind: 'dateTime' }
  | { readonly kind: 'text'; readonly values: readonly string[] | null };

/** A source the catalogue writes somewhere writes the same to a mapped field; the rest is text. */
function written(source: FieldSource): Written {
  const own = customFields.find((f) => f.source === source);
  if (own?.type === 'Number') return { kind: 'number' };
  if (own?.type === 'DateTime') return { kind: 'dateTime' };
  return { kind: 'text', values: own?.allowedValues ?? null };
}

function writtenShown(source: FieldSource, value: Written): string {
  if (value.kind === 'number') return `a number (${source})`;
  if (value.kind === 'dateTime') return `a date and time (${source})`;
  return value.values ? `one of ${value.values.join(', ')} (${source})` : `text (${source})`;
}

const SHOWN: Record<string, string> = {
  boolean: 'Checkbox',
  date: 'Date',
  datetime: 'Date/Time',
  email: 'Email',
  url: 'URL',
  phone: 'Phone',
  currency: 'Currency',
  percent: 'Percent',
  int: 'Number',
  multipicklist: 'Picklist (Multi-Select)',
  reference: 'Lookup',
};

/** The field's type as the setup UI shows it: `Text(10)`, `Number(18, 0)`, `Checkbox`. */
function typeShown(field: OrgField): string {
  switch (field.type) {
    case 'string':
      return `Text(${field.length ?? 0})`;
    case 'textarea':
      return `Text Area(${field.length ?? 0})`;
    case 'double':
      return `Number(${(field.precision ?? 0) - (field.scale ?? 0)}, ${field.scale ?? 0})`;
    case 'picklist':
      return field.restrictedPicklist ? 'Picklist (restricted)' : 'Picklist';
    default:
      return SHOWN[field.type] ?? field.type;
  }
}

/** describe types a JSON number is written to, and those text is. */
const NUMBER_TYPES = new Set(['double', 'int', 'long', 'currency', 'percent']);
const TEXT_TYPES = new Set(['string', 'textarea', 'url', 'phone', 'combobox', 'encryptedstring']);

/** Why `field` cannot take `value` from `source`, or undefined when it can. */
function refusal(field: OrgField, source: FieldSource, value: Written): string | undefined {
  if (field.createable === false && field.updateable === false)
    return 'the connected user may not edit it (field-level security)';
  if (value.kind === 'number')
    return NUMBER_TYPES.has(field.type) ? undefined : `a ${typeShown(field)} field takes no number`;
  if (value.kind === 'dateTime')
    return field.type === 'datetime'
      ? undefined
      : `a ${typeShown(field)} field takes no date and time`;
  if (TEXT_TYPES.has(field.type)) return undefined;
  if (field.type === 'email')
    return source === 'email' ? undefined : 'an Email field takes email addresses only';
  if (field.type === 'picklist' || field.type === 'multipicklist') {
    // An unrestricted picklist takes any value through the API; a restricted one only its own.
    if (!field.restrictedPicklist) return undefined;
    const active = new Set(
      (field.picklistValues ?? []).filter((p) => p.active !== false).map((p) => p.value),
    );
    const unknown = value.values?.filter((v) => !active.has(v));
    if (unknown === undefined)
      return 'a restricted picklist takes its own values only, not free text';
    return unknown.length === 0 ? undefined : `its values lack ${unknown.join(', ')}`;
  }
  return `a ${typeShown(field)} field takes no text`;
}

/**
 * The mappings whose org field cannot take what the sync writes (`fields` per object, from
 * describe), each with the field's type, what would be written, and why not. A field describe
 * does not show (missing, or hidden from the connected user) is refused too.
 */
export function refusedMappings(
  mappings: readonly FieldMapping[],
  fields: ReadonlyMap<CrmObject, readonly OrgField[]>,
): RefusedMapping[] {
  return mappings.flatMap((mapping) => {
    const field = fields
      .get(mapping.object)
      ?.find((f) => f.name.toLowerCase() === mapping.apiName.toLowerCase());
    const value = written(mapping.source);
    const shown = {
      mapping,
      field: `${mapping.object}.${mapping.apiName}`,
      writes: writtenShown(mapping.source, value),
    };
    if (!field)
      return [
        {
          ...shown,
          type: 'missing',
          reason: 'the org has no such field, or the connected user cannot see it',
        },
      ];
    const reason = refusal(field, mapping.source, value);
    return reason === undefined ? [] : [{ ...shown, type: typeShown(field), reason }];
  });
}
