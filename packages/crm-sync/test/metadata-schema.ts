/**
 * Salesforce's Metadata API schema, read from `../shared/salesforce` beside the repository (it is
 * Salesforce's copyrighted file and never copied in). Under CI=true a missing schema fails the run.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const schemaDir = resolve(repoRoot, '../shared/salesforce');
const envelopeXsd = resolve(schemaDir, 'soapenv-min.xsd');
const metadataXsd = resolve(schemaDir, 'metadata-v63.xsd');

export const schemaAvailable = existsSync(envelopeXsd) && existsSync(metadataXsd);
const schemaMissingReason = `Salesforce's Metadata API schema is not at ${schemaDir}`;

if (!schemaAvailable) {
  if (process.env.CI === 'true')
    throw new Error(`${schemaMissingReason}: it must be there under CI`);
  console.warn(`Skipping schema validation: ${schemaMissingReason}`);
}

let schema: { envelope: string; metadata: string } | undefined;

/** Validates whole SOAP envelopes; returns xmllint's errors per document ([] when valid). */
export async function validateEnvelopes(envelopes: readonly string[]): Promise<string[]> {
  schema ??= {
    envelope: readFileSync(envelopeXsd, 'utf8'),
    metadata: readFileSync(metadataXsd, 'utf8'),
  };
  const result = await validateXML({
    xml: envelopes.map((contents, i) => ({ fileName: `envelope-${i}.xml`, contents })),
    schema: [{ fileName: 'soapenv-min.xsd', contents: schema.envelope }],
    preload: [{ fileName: 'metadata-v63.xsd', contents: schema.metadata }],
  });
  return result.errors.map((e) => e.rawMessage);
}
