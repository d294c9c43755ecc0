/**
 * SOAP 1.1 envelopes for the Metadata API: `upsertMetadata` on CustomField (at most 10 per call)
 * and `updateMetadata` on the connecting user's Profile (field-level security).
 */
import { create } from 'xmlbuilder2';
import { chunk } from '../model/chunk.js';
import { CrmSyncError } from '../model/errors.js';
import {
  appendCustomField,
  appendFieldPermissions,
  type CustomFieldDefinition,
  METADATA_NS,
  SOAP_ENV_NS,
  XSI_NS,
} from './xml.js';

/** The most components one `upsertMetadata`/`updateMetadata` call takes. */
export const METADATA_BATCH_LIMIT = 10;
/** The API version of the Metadata SOAP endpoint unless told otherwise (as the REST calls). */
export const DEFAULT_API_VERSION = '59.0';

const XMLNS_NS = 'http://www.w3.org/2000/xmlns/';

/** Session and API version of the Metadata API envelopes. */
export interface MetadataRequestOptions {
  /** The OAuth access token, sent as the SOAP SessionHeader. */
  readonly sessionId: string;
  /** e.g. '59.0' (default). */
  readonly apiVersion?: string;
}

/** One SOAP call, ready to POST to `{instanceUrl}{path}`. */
export interface MetadataRequest {
  readonly operation: 'upsertMetadata' | 'updateMetadata';
  /** `/services/Soap/m/<apiVersion>`, relative to the instance URL. */
  readonly path: string;
  readonly headers: { readonly 'Content-Type': string; readonly SOAPAction: string };
  readonly body: string;
  /** The full names of the components in this call, in order (results come back in this order). */
  readonly fullNames: readonly string[];
}

type CheckedOptions = Required<MetadataRequestOptions>;

function checkOptions({
  sessionId,
  apiVersion = DEFAULT_API_VERSION,
}: MetadataRequestOptions): CheckedOptions {
  if (typeof sessionId !== 'string' || sessionId.trim() === '') {
    throw new CrmSyncError('invalid_input', 'A sessionId (the access token) is required');
  }
  if (!/^\d{2,3}\.0$/.test(apiVersion)) {
    throw new CrmSyncError(
      'invalid_input',
      `apiVersion must look like '59.0', got ${JSON.stringify(apiVersion)}`,
    );
  }
  return { sessionId, apiVersion };
}

function checkUnique(fullNames: readonly string[]): void {
  const seen = new Set<string>();
  const repeated = fullNames.filter((name) => {
    const key = name.toLowerCase();
    const again = seen.has(key);
    seen.add(key);
    return again;
  });
  if (repeated.length > 0) {
    throw new CrmSyncError('invalid_input', `Fields named more than once: ${repeated.join(', ')}`);
  }
}

function envelope(
  operation: MetadataRequest['operation'],
  { sessionId, apiVersion }: CheckedOptions,
  fullNames: readonly string[],
  fill: (call: ReturnType<typeof create>) => void,
): MetadataRequest {
  const root = create({ version: '1.0', encoding: 'UTF-8' })
    .ele(SOAP_ENV_NS, 'soapenv:Envelope')
    .att(XMLNS_NS, 'xmlns', METADATA_NS)
    .att(XMLNS_NS, 'xmlns:xsi', XSI_NS);
  root
    .ele(SOAP_ENV_NS, 'soapenv:Header')
    .ele(METADATA_NS, 'SessionHeader')
    .ele(METADATA_NS, 'sessionId')
    .txt(sessionId);
  fill(root.ele(SOAP_ENV_NS, 'soapenv:Body').ele(METADATA_NS, operation));
  return {
    operation,
    path: `/services/Soap/m/${apiVersion}`,
    headers: { 'Content-Type': 'text/xml; charset=UTF-8', SOAPAction: '""' },
    body: root.end({ prettyPrint: true }),
    fullNames,
  };
}

/**
 * `upsertMetadata` envelopes creating or updating `fields`, at most 10 per envelope, in order.
 * An empty list gives no envelopes. Throws `CrmSyncError` (`invalid_input`) for a missing
 * sessionId, a malformed apiVersion, or a field named twice.
 */
export function buildUpsertCustomFieldRequests(
  fields: readonly CustomFieldDefinition[],
  options: MetadataRequestOptions,
): MetadataRequest[] {
  const checked = checkOptions(options);
  checkUnique(fields.map((f) => f.fullName));
  return chunk(fields, METADATA_BATCH_LIMIT).map((batch) =>
    envelope(
      'upsertMetadata',
      checked,
      batch.map((f) => f.fullName),
      (call) => {
        for (const field of batch) {
          const metadata = call.ele(METADATA_NS, 'metadata').att(XSI_NS, 'xsi:type', 'CustomField');
          appendCustomField(metadata, field, field.fullName);
        }
      },
    ),
  );
}

/**
 * The `updateMetadata` envelope granting read and edit on exactly `fields` to the profile
 * `profileFullName` (its Metadata API full name, e.g. `Admin`). Other permissions of the profile
 * are left as they are: `updateMetadata` on a Profile changes only the entries sent.
 */
export function buildProfileFieldPermissionsRequest(
  profileFullName: string,
  fields: readonly { readonly fullName: string }[],
  options: MetadataRequestOptions,
): MetadataRequest {
  if (typeof profileFullName !== 'string' || profileFullName.trim() === '') {
    throw new CrmSyncError('invalid_input', 'A profile full name is required');
  }
  if (fields.length === 0) {
    throw new CrmSyncError('invalid_input', 'No fields to grant: give at least one field');
  }
  const fullNames = fields.map((f) => f.fullName);
  checkUnique(fullNames);
  return envelope('updateMetadata', checkOptions(options), [profileFullName], (call) => {
    const profile = call.ele(METADATA_NS, 'metadata').att(XSI_NS, 'xsi:type', 'Profile');
    profile.ele(METADATA_NS, 'fullName').txt(profileFullName);
    appendFieldPermissions(profile, fullNames);
  });
}
