// The Metadata API's SOAP endpoint as the emulator serves it: upsertMetadata on CustomField
// and PermissionSet, updateMetadata on Profile (fieldPermissions), readMetadata on CustomField
// (custom-field-metadata.ts), at most 10 components per
// call, results and faults shaped as the Metadata WSDL says. Request envelopes are validated
// against Salesforce's schema when ../shared/salesforce is present (always under CI=true in
// this repository; an installed emulator validates only where SF_EMULATOR_SCHEMA_DIR names it).
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { create } from 'xmlbuilder2';
import { validateXML } from 'xmllint-wasm';
import { readCustomFields, saveCustomField } from './custom-field-metadata.ts';
import { customFieldDescribe, type FieldDescribe, type Org } from './org.ts';

const HERE = fileURLToPath(import.meta.url);
/** Run from this repository (its own tests) rather than installed from the registry. */
const IN_REPOSITORY = !HERE.split(/[\\/]/).includes('node_modules');
const SCHEMA_DIR =
  process.env.SF_EMULATOR_SCHEMA_DIR ?? join(dirname(HERE), '../../../../shared/salesforce');
const SOAPENV = 'http://schemas.xmlsoap.org/soap/envelope/';
const METADATA = 'http://soap.sforce.com/2006/04/metadata';
const XSI = 'http://www.w3.org/2001/XMLSchema-instance';

/** Salesforce's SOAP and Metadata XML schemas, loaded to check request envelopes. */
export interface Schema {
  soapenv: string;
  metadata: string;
}

/** Salesforce's schema files, or null with the reason when they are not on this machine. */
export function loadSchema(): Schema | { missing: string } {
  const soapenv = join(SCHEMA_DIR, 'soapenv-min.xsd');
  const metadata = join(SCHEMA_DIR, 'metadata-v63.xsd');
  if (!existsSync(soapenv) || !existsSync(metadata)) {
    const missing = `Salesforce's Metadata schema is not at ${SCHEMA_DIR}`;
    if (IN_REPOSITORY && process.env.CI === 'true')
      throw new Error(`${missing} (required under CI=true)`);
    return { missing };
  }
  return { soapenv: readFileSync(soapenv, 'utf8'), metadata: readFileSync(metadata, 'utf8') };
}

export async function schemaErrors(schema: Schema, xml: string): Promise<string[]> {
  const result = await validateXML({
    xml: [{ fileName: 'request.xml', contents: xml }],
    schema: [{ fileName: 'soapenv-min.xsd', contents: schema.soapenv }],
    preload: [{ fileName: 'metadata-v63.xsd', contents: schema.metadata }],
  });
  return result.valid ? [] : result.errors.map((e) => e.message);
}

// --- a small DOM walk over xmlbuilder2's parsed document ---

interface XmlElement {
  localName: string;
  namespaceURI: string | null;
  textContent: string | null;
  childNodes: ArrayLike<XmlElement & { nodeType: number }>;
  getAttributeNS(ns: string, name: string): string | null;
}

function children(node: XmlElement, name?: string): XmlElement[] {
  return Array.from(node.childNodes).filter(
    (c) => c.nodeType === 1 && (name === undefined || c.localName === name),
  );
}

function child(node: XmlElement, name: string): XmlElement | undefined {
  return children(node, name)[0];
}

function text(node: XmlElement, name: string): string | undefined {
  const c = child(node, name);
  return c ? (c.textContent ?? '') : undefined;
}

function escapeXml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function envelope(body: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAPENV}" xmlns="${METADATA}"><soapenv:Body>${body}</soapenv:Body></soapenv:Envelope>`;
}

export function fault(code: string, message: string): string {
  return `<?xml version="1.0" encoding="UTF-8"?><soapenv:Envelope xmlns:soapenv="${SOAPENV}" xmlns:sf="${METADATA}"><soapenv:Body><soapenv:Fault><faultcode>${code.includes(':') ? code : `sf:${code}`}</faultcode><faultstring>${escapeXml(message)}</faultstring></soapenv:Fault></soapenv:Body></soapenv:Envelope>`;
}

interface ResultError {
  statusCode: string;
  message: string;
  fields?: string;
}

function resultXml(r: { created?: boolean; fullName: string; errors: ResultError[] }): string {
  const errors = r.errors
    .map(
      (e) =>
        `<errors>${e.fields ? `<fields>${escapeXml(e.fields)}</fields>` : ''}<message>${escapeXml(e.message)}</message><statusCode>${e.statusCode}</statusCode></errors>`,
    )
    .join('');
  const created = r.created === undefined ? '' : `<created>${r.created}</created>`;
  return `<result>${created}${errors}<fullName>${escapeXml(r.fullName)}</fullName><success>${r.errors.length === 0}</success></result>`;
}

export interface MetadataOutcome {
  status: number;
  body: string;
  operation: string;
  components: number;
}

export interface MetadataOptions {
  /** Per-component failures: fullName -> error. */
  componentErrors: Map<string, ResultError>;
  /** Checks the SessionHeader; returns a fault body when the session is not valid. */
  sessionFault(sessionId: string | undefined): string | undefined;
}

function toDescribe(metadata: XmlElement, name: string): FieldDescribe {
  const type = text(metadata, 'type') ?? '';
  const number = (n: string) => Number(text(metadata, n) ?? 0);
  const base = customFieldDescribe(name, text(metadata, 'label') ?? name, 'string');
  switch (type) {
    case 'Text':
      return { ...base, type: 'string', length: number('length') };
    case 'LongTextArea':
      return {
        ...base,
        type: 'textarea',
        length: number('length'),
        extraTypeInfo: 'plaintextarea',
      };
    case 'Number':
      return { ...base, type: 'double', precision: number('precision'), scale: number('scale') };
    case 'DateTime':
      return { ...base, type: 'datetime' };
    default:
      throw new Error(`unsupported CustomField type ${type}`);
  }
}

/** The result of one component of an `upsertMetadata` or `updateMetadata` call, as XML. */
function saveComponent(
  org: Org,
  operation: string,
  metadata: XmlElement,
  options: MetadataOptions,
): string {
  const type = metadata.getAttributeNS(XSI, 'type')?.replace(/^.*:/, '');
  const fullName = text(metadata, 'fullName') ?? '';
  const injected = options.componentErrors.get(fullName);
  // A failed component: success=false with its errors. updateMetadata answers a SaveResult
  // (no `created`), upsertMetadata an UpsertResult.
  // https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_updateMetadata.htm
  // https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_upsertMetadata.htm
  if (injected) {
    return resultXml({
      ...(operation === 'upsertMetadata' ? { created: false } : {}),
      fullName,
      errors: [injected],
    });
  }
  if (operation === 'upsertMetadata' && type === 'CustomField') {
    const [object = '', field = ''] = fullName.split('.');
    if (!org.fields.has(object) || !field.endsWith('__c')) {
      return resultXml({
        created: false,
        fullName,
        errors: [
          { statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: `no such entity ${object}` },
        ],
      });
    }
    const sent = Object.fromEntries(
      children(metadata).map((c) => [c.localName, c.textContent ?? '']),
    );
    const saved = saveCustomField(org, object, toDescribe(metadata, field), sent);
    return 'error' in saved
      ? resultXml({ created: false, fullName, errors: [saved.error] })
      : resultXml({ created: saved.created, fullName, errors: [] });
  }
  if (operation === 'updateMetadata' && type === 'Profile') {
    const profileId = org.profileIdOf(fullName);
    if (!profileId) {
      return resultXml({
        fullName,
        errors: [
          { statusCode: 'INVALID_CROSS_REFERENCE_KEY', message: `no Profile named ${fullName}` },
        ],
      });
    }
    const errors = grantAll(org, metadata, (field, read, edit) =>
      org.setFieldPermission(profileId, field, read, edit),
    );
    return resultXml({ fullName, errors });
  }
  // A permission set (not owned by a profile), created or updated by its API name; its
  // fieldPermissions grant read/edit on fields.
  // https://developer.salesforce.com/docs/atlas.en-us.api_meta.meta/api_meta/meta_permissionset.htm
  if (operation === 'upsertMetadata' && type === 'PermissionSet') {
    const existing = org.permissionSetNamed(fullName);
    const id =
      existing?.Id ??
      org.insert('PermissionSet', {
        Name: fullName,
        Label: text(metadata, 'label') ?? fullName,
        IsOwnedByProfile: false,
      });
    const errors = grantAll(org, metadata, (field, read, edit) => org.grant(id, field, read, edit));
    return resultXml({ created: existing === undefined, fullName, errors });
  }
  return resultXml({
    fullName,
    errors: [{ statusCode: 'INVALID_TYPE', message: `${type} is not emulated for ${operation}` }],
  });
}

export function handleMetadata(org: Org, xml: string, options: MetadataOptions): MetadataOutcome {
  let document: XmlElement;
  try {
    document = create(xml).node as unknown as XmlElement;
  } catch {
    return {
      status: 500,
      body: fault('soapenv:Client', 'Could not parse the request envelope'),
      operation: '',
      components: 0,
    };
  }
  const root = children(document)[0];
  const header = root && child(root, 'Header');
  const sessionId = header && child(header, 'SessionHeader');
  const sessionFault = options.sessionFault(sessionId && text(sessionId, 'sessionId'));
  const body = root && child(root, 'Body');
  const call = body && children(body)[0];
  const operation = call?.localName ?? '';
  const outcome = (status: number, content: string, components = 0): MetadataOutcome => ({
    status,
    body: content,
    operation,
    components,
  });
  if (sessionFault) return outcome(500, sessionFault);
  if (operation === 'readMetadata' && call && text(call, 'type') === 'CustomField') {
    const names = children(call, 'fullNames').map((n) => n.textContent ?? '');
    const records = readCustomFields(org, names);
    return outcome(
      200,
      envelope(`<readMetadataResponse><result>${records}</result></readMetadataResponse>`),
      names.length,
    );
  }
  if (!call || (operation !== 'upsertMetadata' && operation !== 'updateMetadata')) {
    return outcome(500, fault('INVALID_OPERATION', `operation ${operation} is not emulated`));
  }
  const components = children(call, 'metadata');
  if (components.length > 10) {
    return outcome(
      500,
      fault(
        'EXCEEDED_ID_LIMIT',
        `EXCEEDED_ID_LIMIT: record limit reached. cannot submit more than 10 records in this call`,
      ),
      components.length,
    );
  }
  const results = components.map((metadata) => saveComponent(org, operation, metadata, options));
  return outcome(
    200,
    envelope(`<${operation}Response>${results.join('')}</${operation}Response>`),
    components.length,
  );
}

/** Applies each `fieldPermissions` of a Profile or PermissionSet; errors for unknown fields. */
function grantAll(
  org: Org,
  metadata: XmlElement,
  grant: (field: string, read: boolean, edit: boolean) => void,
): ResultError[] {
  const errors: ResultError[] = [];
  for (const permission of children(metadata, 'fieldPermissions')) {
    const field = text(permission, 'field') ?? '';
    const [object = '', name = ''] = field.split('.');
    if (!org.fields.get(object)?.has(name)) {
      errors.push({
        statusCode: 'INVALID_CROSS_REFERENCE_KEY',
        message: `In field: field - no CustomField named ${field} found`,
        fields: 'field',
      });
      continue;
    }
    grant(field, text(permission, 'readable') === 'true', text(permission, 'editable') === 'true');
  }
  return errors;
}
