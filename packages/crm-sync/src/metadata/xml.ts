/**
 * The XML shared by the SOAP envelopes and the source-format files: a CustomField's children in
 * the order the Metadata API's XSD requires, and field permissions.
 */
import type { create } from 'xmlbuilder2';
import type { CustomFieldSpec } from '../model/catalogue.js';

type XMLBuilder = ReturnType<typeof create>;

export const METADATA_NS = 'http://soap.sforce.com/2006/04/metadata';
export const SOAP_ENV_NS = 'http://schemas.xmlsoap.org/soap/envelope/';
export const XSI_NS = 'http://www.w3.org/2001/XMLSchema-instance';

/** What a custom field needs to be created: a catalogue field or one of the same shape. */
export type CustomFieldDefinition = Pick<
  CustomFieldSpec,
  'object' | 'apiName' | 'fullName' | 'label' | 'meaning' | 'metadata'
>;

function leaf(parent: XMLBuilder, name: string, value: string | number | boolean): void {
  parent.ele(METADATA_NS, name).txt(String(value));
}

/**
 * Appends a CustomField's children after `fullName` (which differs: `Account.X__c` in a SOAP
 * call, `X__c` in a source file). Order per the XSD: description, label, length, precision,
 * scale, type, visibleLines.
 */
export function appendCustomField(
  parent: XMLBuilder,
  field: CustomFieldDefinition,
  fullName: string,
): void {
  const { metadata } = field;
  leaf(parent, 'fullName', fullName);
  leaf(parent, 'description', field.meaning);
  leaf(parent, 'label', field.label);
  if (metadata.type === 'Text' || metadata.type === 'LongTextArea')
    leaf(parent, 'length', metadata.length);
  if (metadata.type === 'Number') {
    leaf(parent, 'precision', metadata.precision);
    leaf(parent, 'scale', metadata.scale);
  }
  leaf(parent, 'type', metadata.type);
  if (metadata.type === 'LongTextArea') leaf(parent, 'visibleLines', metadata.visibleLines);
}

/** Appends `fieldPermissions` granting read and edit: editable, field, readable (XSD order). */
export function appendFieldPermissions(parent: XMLBuilder, fullNames: readonly string[]): void {
  for (const fullName of fullNames) {
    const permission = parent.ele(METADATA_NS, 'fieldPermissions');
    leaf(permission, 'editable', true);
    leaf(permission, 'field', fullName);
    leaf(permission, 'readable', true);
  }
}
