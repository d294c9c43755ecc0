// CustomField components as the Metadata API keeps them: an upsert replaces the whole component
// (what it does not send is not kept), a change of type converts the values the records hold,
// a field mapped for lead conversion keeps its type, and readMetadata answers what the org holds,
// the attributes an admin set included. Always on: that is what Salesforce does.
import type { FieldDescribe, FieldType, Org } from './org.ts';

const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/** CustomField elements describe shows; every other element is an attribute kept as sent. */
const DESCRIBED = new Set(['fullName', 'label', 'type', 'length', 'precision', 'scale']);

/**
 * The Metadata API's CustomField `type` of each describe type.
 * https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/customfield.htm
 */
const METADATA_TYPE: Partial<Record<FieldType, string>> = {
  string: 'Text',
  textarea: 'LongTextArea',
  double: 'Number',
  datetime: 'DateTime',
  date: 'Date',
  boolean: 'Checkbox',
  picklist: 'Picklist',
  email: 'Email',
  url: 'Url',
  phone: 'Phone',
};

/** A custom field an admin made by hand, for `seedCustomField`. */
export interface HandMadeField {
  /** `Account`, `Contact`, `Lead`, ... */
  object: string;
  /** `ServiceSessions__c` */
  name: string;
  label: string;
  type: FieldType;
  length?: number;
  precision?: number;
  scale?: number;
  /** Attributes describe does not show: `inlineHelpText`, `description`, `trackHistory`, ... */
  attributes?: Record<string, string>;
  /** Mapped in the org's Lead Custom Field Mapping (so its type cannot change). */
  mappedForLeadConversion?: boolean;
}

/** Adds a custom field as an admin would make it in Setup, with the attributes they set. */
export function seedCustomField(org: Org, field: HandMadeField): void {
  const { object, name, label, type, length = 0, precision = 0, scale = 0 } = field;
  org.addCustomField(object, {
    name,
    label,
    type,
    length,
    precision,
    scale,
    custom: true,
    nillable: true,
    createable: true,
    updateable: true,
    extraTypeInfo: type === 'textarea' ? 'plaintextarea' : null,
  });
  org.customFieldAttributes.set(`${object}.${name}`, { ...field.attributes });
  if (field.mappedForLeadConversion) org.leadConversionMapped.add(`${object}.${name}`);
}

/** A saved component's outcome: created or updated, or the error that refused it. */
export type SaveOutcome =
  | { created: boolean }
  | { error: { statusCode: string; message: string; fields?: string } };

/**
 * Saves an upserted CustomField. upsertMetadata saves the component as sent, whole: an attribute
 * it leaves out (help text, description, history tracking) is not kept from before.
 * https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_upsertMetadata.htm
 * https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_updateMetadata.htm
 */
export function saveCustomField(
  org: Org,
  object: string,
  field: FieldDescribe,
  sent: Record<string, string>,
): SaveOutcome {
  const key = `${object}.${field.name}`;
  const before = org.fields.get(object)?.get(field.name);
  if (before && before.type !== field.type && org.leadConversionMapped.has(key)) {
    // "You can't change the field type of a field that's included in Lead Custom Field Mapping."
    // https://help.salesforce.com/s/articleView?id=sales.customize_mapleads_guidelines.htm&language=en_US&type=5
    // The page names no status code; FIELD_INTEGRITY_EXCEPTION is the StatusCode list's code for
    // a change the org's own settings forbid (the Metadata Error's statusCode is a StatusCode).
    // https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_error.htm
    return {
      error: {
        statusCode: 'FIELD_INTEGRITY_EXCEPTION',
        message: `You can't change the field type of a field that's included in Lead Custom Field Mapping: ${key}`,
        fields: 'type',
      },
    };
  }
  const created = org.addCustomField(object, field);
  org.customFieldAttributes.set(
    key,
    Object.fromEntries(Object.entries(sent).filter(([name]) => !DESCRIBED.has(name))),
  );
  if (before && before.type !== field.type) convertValues(org, object, field, before.type);
  return { created };
}

/**
 * The records' values of a field whose type changed, converted to the new type; a value that
 * cannot be converted is lost ("Changing to Number from any other type", "to or from type Date
 * or Date/Time", "from Checkbox to any other type" can cause data loss). An incompatible
 * conversion (to or from Date or Date/Time, from Checkbox or Multi-Select Picklist) sets the
 * field to null in every record.
 * https://help.salesforce.com/s/articleView?id=platform.notes_on_changing_custom_field_types.htm&language=en_US&type=5
 * https://developer.salesforce.com/docs/atlas.en-us.change_data_capture.meta/change_data_capture/cdc_field_conversion_single_event.htm
 */
function convertValues(org: Org, object: string, field: FieldDescribe, from: FieldType): void {
  for (const record of org.table(object).values()) {
    const value = record[field.name];
    if (value === undefined || value === null) continue;
    record[field.name] = converted(value, from, field.type);
  }
}

const INCOMPATIBLE = new Set<FieldType>(['date', 'datetime', 'boolean']);

function converted(value: unknown, from: FieldType, to: FieldType): unknown {
  if (INCOMPATIBLE.has(from) || INCOMPATIBLE.has(to)) return null;
  if (to !== 'double') return String(value);
  if (typeof value === 'number') return value;
  const text = String(value).trim();
  return /^[+-]?\d+(\.\d+)?$/.test(text) ? Number(text) : null;
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * readMetadata's records for CustomField `fullNames`: each field the org has, as it holds it
 * (its type and sizes, and every attribute last saved or set by an admin), elements in the
 * schema's order (fullName, then alphabetical). A name the org lacks gives no record.
 * https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_readMetadata.htm
 */
export function readCustomFields(org: Org, fullNames: readonly string[]): string {
  return fullNames
    .map((fullName) => {
      const [object = '', name = ''] = fullName.split('.');
      const field = org.fields.get(object)?.get(name);
      if (!field?.custom) return '';
      const sizes: Record<string, number> =
        field.type === 'double'
          ? { precision: field.precision, scale: field.scale }
          : field.length > 0
            ? { length: field.length }
            : {};
      const elements: Record<string, string> = {
        ...org.customFieldAttributes.get(fullName),
        label: field.label,
        ...Object.fromEntries(Object.entries(sizes).map(([k, v]) => [k, String(v)])),
        type: METADATA_TYPE[field.type] ?? field.type,
      };
      const body = Object.keys(elements)
        .sort()
        .map((k) => `<${k}>${escapeXml(elements[k] ?? '')}</${k}>`)
        .join('');
      return `<records xmlns:xsi="${XSI}" xsi:type="CustomField"><fullName>${escapeXml(fullName)}</fullName>${body}</records>`;
    })
    .join('');
}
