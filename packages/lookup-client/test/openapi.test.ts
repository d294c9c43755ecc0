/**
 * The OpenAPI 3.1 document generated from the zod schemas: valid for a real OpenAPI validator,
 * and saying what the spec says (the full answers of the conformance suite are checked against
 * its schemas in lookup-core).
 */
import { Validator } from '@seriousme/openapi-schema-validator';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../src/openapi.js';

const document = openApiDocument();

describe('the OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document', async () => {
    const validator = new Validator();
    const result = await validator.validate(document);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('names the three key transports and every answer of the lookup', () => {
    const operation = document.paths['/api/service/lookup'].post;
    expect(Object.keys(operation.responses).sort()).toEqual(
      ['200', '400', '401', '404', '405', '413', '415', '429', '500', '503'].sort(),
    );
    expect(document.components.securitySchemes).toMatchObject({
      bearerKey: { type: 'http', scheme: 'bearer' },
      headerKey: { type: 'apiKey', in: 'header', name: 'x-service-secret-key' },
    });
    expect(document.components.schemas.LookupRequest).toMatchObject({
      properties: { secretKey: { type: 'string' } },
    });
  });

  it('writes out the limits and formats the schemas check with patterns and refinements', () => {
    const properties = (name: string) =>
      (document.components.schemas[name] as { properties: Record<string, unknown> }).properties;
    expect(properties('LookupResponse').contacts).toMatchObject({ maxItems: 10 });
    expect(properties('ContactWithActivity').site_activity).toMatchObject({ maxItems: 10 });
    expect(properties('Company').service_sessions).toEqual({ type: 'integer', minimum: 0 });
    expect(properties('Company').service_purchase_intent).toMatchObject({
      enum: ['low', 'medium', 'high', 'very_high'],
    });
    expect(properties('Company').service_first_seen).toMatchObject({
      type: 'string',
      format: 'date-time',
    });
    expect(properties('LookupRequest').email).toMatchObject({
      anyOf: [{ type: 'string', maxLength: 320 }, { type: 'null' }],
    });
  });
});
