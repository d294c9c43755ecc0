/**
 * Reads a Metadata API SOAP response: `UpsertResult`/`SaveResult` per component, or a SOAP fault.
 */
import { create } from 'xmlbuilder2';
import { CrmSyncError } from '../model/errors.js';

/** An error the Metadata API gave for one component. */
export interface MetadataError {
  readonly statusCode: string;
  readonly message: string;
  readonly fields: readonly string[];
}

/** The Metadata API's result for one component (`UpsertResult` or `SaveResult`). */
export interface MetadataResult {
  readonly fullName: string;
  readonly success: boolean;
  /** `UpsertResult.created`; null for `updateMetadata`'s `SaveResult`, which has none. */
  readonly created: boolean | null;
  readonly errors: readonly MetadataError[];
}

/** A SOAP fault: the Metadata API refused the whole call. */
export interface SoapFault {
  /** e.g. `sf:INVALID_SESSION_ID` */
  readonly faultCode: string;
  readonly faultString: string;
  /** The `exceptionCode` of the fault detail, e.g. `INVALID_SESSION_ID`, when given. */
  readonly exceptionCode: string | null;
}

/** A parsed Metadata API answer: the per-component results, or the fault. */
export type MetadataResponse =
  | { readonly ok: true; readonly results: readonly MetadataResult[] }
  | { readonly ok: false; readonly fault: SoapFault };

interface XmlNode {
  readonly localName?: string | null;
  readonly nodeType: number;
  readonly textContent: string | null;
  readonly childNodes: ArrayLike<XmlNode>;
}

const ELEMENT = 1;

function children(node: XmlNode, name?: string): XmlNode[] {
  return Array.from(node.childNodes).filter(
    (c) => c.nodeType === ELEMENT && (name === undefined || c.localName === name),
  );
}

function textOf(node: XmlNode, name: string): string | null {
  const [child] = children(node, name);
  return child === undefined ? null : (child.textContent ?? '').trim();
}

function invalid(why: string): never {
  throw new CrmSyncError('invalid_response', `Not a Metadata API response: ${why}`);
}

function parseError(node: XmlNode): MetadataError {
  return {
    statusCode: textOf(node, 'statusCode') ?? invalid('an error has no statusCode'),
    message: textOf(node, 'message') ?? '',
    fields: children(node, 'fields').map((f) => (f.textContent ?? '').trim()),
  };
}

function parseResult(node: XmlNode): MetadataResult {
  const created = textOf(node, 'created');
  return {
    fullName: textOf(node, 'fullName') ?? invalid('a result has no fullName'),
    success: textOf(node, 'success') === 'true',
    created: created === null ? null : created === 'true',
    errors: children(node, 'errors').map(parseError),
  };
}

function parseFault(node: XmlNode): SoapFault {
  const [detail] = children(node, 'detail');
  const [exception] = detail === undefined ? [] : children(detail);
  return {
    faultCode: textOf(node, 'faultcode') ?? '',
    faultString: textOf(node, 'faultstring') ?? '',
    exceptionCode: exception === undefined ? null : textOf(exception, 'exceptionCode'),
  };
}

/**
 * Parses the response to an `upsertMetadata` or `updateMetadata` call: one result per component,
 * in request order, or the SOAP fault that refused the whole call. Throws `CrmSyncError`
 * (`invalid_response`) when the text is not such a response.
 */
export function parseMetadataResults(xml: string): MetadataResponse {
  let envelope: XmlNode;
  try {
    envelope = create(xml).root().node as unknown as XmlNode;
  } catch (error) {
    invalid(error instanceof Error ? error.message : String(error));
  }
  if (envelope.localName !== 'Envelope') invalid(`root element is ${envelope.localName}`);
  const [body] = children(envelope, 'Body');
  const [content] = body === undefined ? [] : children(body);
  if (content === undefined) invalid('no SOAP Body content');
  if (content.localName === 'Fault') return { ok: false, fault: parseFault(content) };
  if (
    content.localName !== 'upsertMetadataResponse' &&
    content.localName !== 'updateMetadataResponse'
  ) {
    invalid(`unexpected ${content.localName}`);
  }
  return { ok: true, results: children(content, 'result').map(parseResult) };
}
