/**
 * Every answer of the behaviour table, checked against the OpenAPI document shipped by
 * @service/lookup-client (the one `service-lookup serve` serves) with a JSON Schema 2020-12
 * validator: the status must be one the document lists, and the body must match its schema.
 */
import document from '@service/lookup-client/openapi.json' with { type: 'json' };
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { expect } from 'vitest';
import type { Sent } from './transport.js';

const ID = 'https://service.test/openapi.json';
// The document is not itself a schema: unknown keywords (openapi, paths, ...) are allowed.
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);
ajv.addSchema({ ...document, $id: ID });

type Responses = Record<string, { content?: object }>;
const operations = document.paths['/api/service/lookup'] as Record<
  string,
  { responses: Responses }
>;

/** `method` is the request's; every method but POST and OPTIONS gets POST's 405. */
export function expectDocumented(method: string, sent: Sent): void {
  const operation = method === 'OPTIONS' ? 'options' : 'post';
  const response = operations[operation]?.responses[sent.status];
  expect(response, `${method} -> ${sent.status} is in the document`).toBeDefined();
  if (response?.content === undefined || sent.body === undefined) return;
  const pointer = `#/paths/~1api~1service~1lookup/${operation}/responses/${sent.status}/content/application~1json/schema`;
  const validate = ajv.getSchema(`${ID}${pointer}`);
  if (validate === undefined) throw new Error(`no schema at ${pointer}`);
  expect(
    validate(sent.body) ? [] : validate.errors,
    `${method} -> ${sent.status} matches the document's schema`,
  ).toEqual([]);
}
