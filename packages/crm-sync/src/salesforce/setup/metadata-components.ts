/**
 * The Metadata API components field setup sends, as the objects jsforce's `metadata.upsert` and
 * `metadata.update` serialize: keys in the order the Metadata XSD requires.
 */
import type { CustomFieldDefinition } from '../../metadata/xml.js';

/** A CustomField: fullName, description, label, length, precision, scale, type, visibleLines. */
export function customFieldComponent(field: CustomFieldDefinition): Record<string, unknown> {
  const { metadata } = field;
  return {
    fullName: field.fullName,
    description: field.meaning,
    label: field.label,
    ...(metadata.type === 'Text' || metadata.type === 'LongTextArea'
      ? { length: metadata.length }
      : {}),
    ...(metadata.type === 'Number' ? { precision: metadata.precision, scale: metadata.scale } : {}),
    type: metadata.type,
    ...(metadata.type === 'LongTextArea' ? { visibleLines: metadata.visibleLines } : {}),
  };
}

/** A Profile granting read and edit on exactly `fields` (editable, field, readable). */
export function profileGrantComponent(
  profileFullName: string,
  fields: readonly { readonly fullName: string }[],
): Record<string, unknown> {
  return {
    fullName: profileFullName,
    fieldPermissions: fields.map((f) => ({ editable: true, field: f.fullName, readable: true })),
  };
}

/**
 * A permission set granting read and edit on `fields` (description, fieldPermissions, label,
 * in the order of the Metadata XSD).
 * https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_permissionset.htm
 */
export function permissionSetComponent(
  name: string,
  fields: readonly { readonly fullName: string }[],
): Record<string, unknown> {
  return {
    fullName: name,
    description: 'Read and edit on the Service fields, for the user the service connects as.',
    fieldPermissions: fields.map((f) => ({ editable: true, field: f.fullName, readable: true })),
    label: name.replace(/_/g, ' '),
  };
}
