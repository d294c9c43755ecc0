/**
 * Salesforce's Metadata API schema, read from `../shared/salesforce` beside the repository (it is
 * Salesforce's copyrighted file and never copied in). Under CI=true a missing schema fails the run;
 * elsewhere the tests that need it are skipped with `requires(schemaMissing)`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { validateXML } from 'xmllint-wasm';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const schemaDir = resolve(repoRoot, '../shared/salesforce');
const envelopeXsd = resolve(schemaDir, 'soapenv-min.xsd');
const metadataXsd = resolve(schemaDir, 'metadata-v63.xsd');

/** Why the schema cannot be used here, or undefined when it is there. */
export const schemaMissing =
  existsSync(envelopeXsd) && existsSync(metadataXsd)
    ? undefined
    : `Salesforce's Metadata API schema is not at ${schemaDir}`;

if (schemaMissing && process.env.CI === 'true')
  throw new Error(`${schemaMissing}: it must be there under CI`);

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
