/**
 * The fields as Salesforce DX source files, for admins who deploy with their own tooling
 * (`sf project deploy start --manifest manifest/package.xml`) instead of granting the service
 * metadata rights.
 */
import { create } from 'xmlbuilder2';
import { CrmSyncError } from '../model/errors.js';
import { DEFAULT_API_VERSION } from './requests.js';
import {
  appendCustomField,
  appendFieldPermissions,
  type CustomFieldDefinition,
  METADATA_NS,
} from './xml.js';

/** One file of a Salesforce DX project. */
export interface SourceFile {
  /** Relative to the project root, with forward slashes. */
  readonly path: string;
  readonly contents: string;
}

/** API version and permission set name of the project `toSourceFormat` writes. */
export interface SourceFormatOptions {
  /** `package.xml` version; default '59.0'. */
  readonly apiVersion?: string;
  /** The permission set's API name; default `Service_Fields`. */
  readonly permissionSetName?: string;
  /** Its label; default `Service Fields`. */
  readonly permissionSetLabel?: string;
}

const ROOT = 'force-app/main/default';

function document(rootName: string, fill: (root: ReturnType<typeof create>) => void): string {
  const root = create({ version: '1.0', encoding: 'UTF-8' }).ele(METADATA_NS, rootName);
  fill(root);
  return `${root.end({ prettyPrint: true })}\n`;
}

/**
 * One `.field-meta.xml` per field, a permission set granting read and edit on exactly these
 * fields, and a `manifest/package.xml` naming them all.
 */
export function toSourceFormat(
  fields: readonly CustomFieldDefinition[],
  options: SourceFormatOptions = {},
): SourceFile[] {
  const {
    apiVersion = DEFAULT_API_VERSION,
    permissionSetName = 'Service_Fields',
    permissionSetLabel = 'Service Fields',
  } = options;
  if (!/^[A-Za-z][A-Za-z0-9_]*$/.test(permissionSetName)) {
    throw new CrmSyncError(
      'invalid_input',
      `permissionSetName ${JSON.stringify(permissionSetName)} is not an API name`,
    );
  }
  const fullNames = fields.map((f) => f.fullName);
  const fieldFiles = fields.map((field) => ({
    path: `${ROOT}/objects/${field.object}/fields/${field.apiName}.field-meta.xml`,
    contents: document('CustomField', (root) => appendCustomField(root, field, field.apiName)),
  }));
  const permissionSet = {
    path: `${ROOT}/permissionsets/${permissionSetName}.permissionset-meta.xml`,
    contents: document('PermissionSet', (root) => {
      root.ele(METADATA_NS, 'description').txt('Read and edit on the Service fields');
      appendFieldPermissions(root, fullNames);
      root.ele(METADATA_NS, 'label').txt(permissionSetLabel);
    }),
  };
  const manifest = {
    path: 'manifest/package.xml',
    contents: document('Package', (root) => {
      const types = root.ele(METADATA_NS, 'types');
      for (const name of fullNames) types.ele(METADATA_NS, 'members').txt(name);
      types.ele(METADATA_NS, 'name').txt('CustomField');
      const sets = root.ele(METADATA_NS, 'types');
      sets.ele(METADATA_NS, 'members').txt(permissionSetName);
      sets.ele(METADATA_NS, 'name').txt('PermissionSet');
      root.ele(METADATA_NS, 'version').txt(apiVersion);
    }),
  };
  return [...fieldFiles, permissionSet, manifest];
}
