/**
 * A service field the org already has, made otherwise than the catalogue says: what differs, what
 * converting it would cost, and the component that converts it without resetting what the admin
 * set. Field setup never converts one unless told to (`convertExistingFields`).
 */
import type { CustomFieldSpec } from '../../model/catalogue.js';
import { customFieldComponent } from './metadata-components.js';

/**
 * A field as the Tooling API's FieldDefinition describes it. Unlike describe, it lists fields
 * that field-level security hides from the connecting user, so an existing field is never
 * planned as new (an upsert would replace its metadata, help text included).
 * https://developer.salesforce.com/docs/atlas.en-us.api_tooling.meta/api_tooling/tooling_api_objects_fielddefinition.htm
 */
export interface FieldDefinition {
  readonly QualifiedApiName: string;
  readonly Label: string;
  /** As the setup UI shows it: `Text(80)`, `Long Text Area(32768)`, `Number(18, 2)`, `Date/Time`. */
  readonly DataType: string;
  readonly Length: number | null;
  readonly Precision: number | null;
  readonly Scale: number | null;
}

/** A service field the org has with another label, type, length or precision. */
export interface ExistingField {
  readonly field: CustomFieldSpec;
  /** The org's field: its type as the setup UI shows it (`Text(255)`) and its label. */
  readonly existing: { readonly type: string; readonly label: string };
  /** The catalogue's type, shown the same way (`Number(18, 0)`). */
  readonly ours: string;
  /** What differs: `label`, `type`, `length`, `precision/scale`. */
  readonly differences: readonly string[];
  /** What converting it would cost, in words; empty when only the label differs. */
  readonly costs: readonly string[];
}

const TYPE_NAME: Record<CustomFieldSpec['metadata']['type'], string> = {
  Text: 'Text',
  LongTextArea: 'Long Text Area',
  Number: 'Number',
  DateTime: 'Date/Time',
};

/** The catalogue's type as FieldDefinition.DataType shows a type. */
function oursShown(field: CustomFieldSpec): string {
  const { metadata } = field;
  const name = TYPE_NAME[metadata.type];
  if (metadata.type === 'Number')
    return `${name}(${metadata.precision - metadata.scale}, ${metadata.scale})`;
  return metadata.type === 'DateTime' ? name : `${name}(${metadata.length})`;
}

/** `Text(80)` -> `Text`, `Date/Time` -> `Date/Time`. */
const typeName = (dataType: string) => dataType.replace(/\(.*\)\s*$/, '').trim();

function differencesOf(field: CustomFieldSpec, existing: FieldDefinition): string[] {
  const out: string[] = [];
  const { metadata } = field;
  if (existing.Label !== field.label) out.push('label');
  if (typeName(existing.DataType) !== TYPE_NAME[metadata.type]) return [...out, 'type'];
  if (
    (metadata.type === 'Text' || metadata.type === 'LongTextArea') &&
    existing.Length !== metadata.length
  )
    out.push('length');
  if (
    metadata.type === 'Number' &&
    (existing.Precision !== metadata.precision || existing.Scale !== metadata.scale)
  )
    out.push('precision/scale');
  return out;
}

/**
 * What converting the field costs, after Salesforce's "Considerations for Converting the Field
 * Type of a Custom Field"; an incompatible conversion (to or from Date/Time, from Checkbox) sets
 * the field to null in every record.
 * https://help.salesforce.com/s/articleView?id=platform.notes_on_changing_custom_field_types.htm&language=en_US&type=5
 * https://developer.salesforce.com/docs/atlas.en-us.change_data_capture.meta/change_data_capture/cdc_field_conversion_single_event.htm
 */
function costsOf(
  field: CustomFieldSpec,
  existing: FieldDefinition,
  differences: readonly string[],
): string[] {
  const from = typeName(existing.DataType);
  const to = TYPE_NAME[field.metadata.type];
  const { metadata } = field;
  if (differences.includes('type')) {
    const loss =
      to === 'Number'
        ? `converting ${from} to Number deletes values that are not numbers`
        : [from, to].some((t) => t === 'Date' || t === 'Date/Time') ||
            from === 'Checkbox' ||
            from.startsWith('Picklist (Multi')
          ? `converting ${from} to ${to} deletes its values`
          : `converting ${from} to ${to} deletes values that do not fit ${to}`;
    return [loss, 'a field mapped for lead conversion cannot change type (Salesforce refuses it)'];
  }
  const costs: string[] = [];
  if (differences.includes('length') && 'length' in metadata) {
    costs.push(
      (existing.Length ?? 0) > metadata.length
        ? `shortening ${existing.DataType} to ${oursShown(field)} cuts values longer than ${metadata.length} characters`
        : `lengthening ${existing.DataType} to ${oursShown(field)} loses no values`,
    );
  }
  if (differences.includes('precision/scale'))
    costs.push(
      `changing ${existing.DataType} to ${oursShown(field)} rounds values to ${'scale' in metadata ? metadata.scale : 0} decimal places`,
    );
  return costs;
}

/** How the org's field differs from the catalogue's, or undefined when it does not. */
export function compareExisting(
  field: CustomFieldSpec,
  existing: FieldDefinition,
): ExistingField | undefined {
  const differences = differencesOf(field, existing);
  if (differences.length === 0) return undefined;
  return {
    field,
    existing: { type: existing.DataType, label: existing.Label },
    ours: oursShown(field),
    differences,
    costs: costsOf(field, existing, differences),
  };
}

/**
 * What the admin set that holds for any type: kept when a field is converted. The type's own
 * attributes (length, picklist values, formula) are the catalogue's; `externalId` and `unique`
 * exist for Text and Number only.
 * https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/customfield.htm
 */
const KEPT = [
  'businessOwnerGroup',
  'businessOwnerUser',
  'businessStatus',
  'complianceGroup',
  'description',
  'inlineHelpText',
  'label',
  'required',
  'securityClassification',
  'trackFeedHistory',
  'trackHistory',
  'trackTrending',
];
const KEPT_FOR_TEXT_AND_NUMBER = ['externalId', 'unique'];

/**
 * The component converting `field`: the catalogue's type and sizes, with every attribute the org
 * holds (`read`, from readMetadata) that the new type takes, so an upsert (which replaces the
 * component) resets nothing the admin set. Keys in the schema's order: fullName, then
 * alphabetical.
 */
export function convertingComponent(
  field: CustomFieldSpec,
  read: Readonly<Record<string, unknown>>,
): Record<string, unknown> {
  const ours = customFieldComponent(field);
  const kept = [
    ...KEPT,
    ...(field.metadata.type === 'Text' || field.metadata.type === 'Number'
      ? KEPT_FOR_TEXT_AND_NUMBER
      : []),
  ].filter((name) => read[name] !== undefined && read[name] !== null && read[name] !== '');
  const merged: Record<string, unknown> = {
    ...ours,
    ...Object.fromEntries(kept.map((name) => [name, read[name]])),
  };
  const { fullName, ...rest } = merged;
  return {
    fullName,
    ...Object.fromEntries(
      Object.keys(rest)
        .sort()
        .map((name) => [name, rest[name]]),
    ),
  };
}
