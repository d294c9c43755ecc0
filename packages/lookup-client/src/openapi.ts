/**
 * The OpenAPI 3.1 document of `POST /api/service/lookup`, generated from the zod schemas (the
 * one source of the wire shape). The build writes it to `dist/openapi.json`, exported as
 * `@service/lookup-client/openapi.json`; `service-lookup serve` serves it. Not part of the client
 * bundle: nothing in `index.ts` imports this module.
 *
 * The answer schemas are the strict reading (what the server sends today); objects do not forbid
 * other properties, because the alpha API may add fields and clients are to keep them.
 */
import {
  isKnownIntent,
  isUtcTimestamp,
  KEY_BODY_FIELD,
  KEY_HEADER,
  KEY_PREFIX,
  LOOKUP_PATH,
  MAX_BODY_BYTES,
  MAX_DOMAIN_INPUT_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_ENTRIES,
  MAX_KEY_LENGTH,
  ERROR_MESSAGES as MESSAGE,
  MIN_KEY_TAIL,
  PURCHASE_INTENTS,
  strictSchemas,
  UTC_TIMESTAMP,
} from '@service/lookup-contract';
import * as z from 'zod/mini';
import { VERSION } from './version.js';

/** What a key is, in every place the document names one. */
const KEY_GRAMMAR =
  `A key is \`${KEY_PREFIX}\` then ${MIN_KEY_TAIL} to ${MAX_KEY_LENGTH - KEY_PREFIX.length} ` +
  'RFC 6750 token68 characters: letters, digits and `-._~+/`, then any `=` padding.';

/**
 * The request body of the lookup (docs/lookup-core/http-api.md), with the server's length limits.
 * Here, not in `schemas.ts`: the client builds its requests itself and need not carry this in its
 * bundle.
 */
const lookupRequestSchema = z.object({
  /** Looked up first when given; null or blank means not given. */
  email: z.optional(z.nullable(z.string().check(z.maxLength(MAX_EMAIL_LENGTH)))),
  domain: z.optional(z.nullable(z.string().check(z.maxLength(MAX_DOMAIN_INPUT_LENGTH)))),
  includeActivity: z.optional(z.boolean()),
  /** The third key transport, for when no header can carry the key. */
  secretKey: z.optional(z.string()),
});

/** Each error status: the message its body carries, then what it means here. */
const ERRORS = {
  400: `${MESSAGE[400]}: neither email nor domain, a field of the wrong type, or a body that is not a JSON object.`,
  401: `${MESSAGE[401]}: the secret key is missing or invalid. A key in a header is judged before the body is read.`,
  404: `${MESSAGE[404]}: nothing matching was observed in the key’s workspace (the lookup never enriches), or the path is not the lookup’s.`,
  405: `${MESSAGE[405]} (the \`Allow\` header lists POST, OPTIONS).`,
  413: `${MESSAGE[413]}: the body is over the server’s limit (${MAX_BODY_BYTES} bytes by default).`,
  415: `${MESSAGE[415]}: the body must be \`application/json\` (or another \`+json\` type).`,
  429: `${MESSAGE[429]}: the key is over the server’s rate limit (when one is set); retry after \`Retry-After\` seconds.`,
  500: `${MESSAGE[500]}.`,
  503: `${MESSAGE[503]}: the store cannot be reached; retry after \`Retry-After\` seconds.`,
} as const;

/** Component schemas by name: every schema the document refers to. */
function componentSchemas(): Record<string, unknown> {
  const registry = z.registry<{ id: string }>();
  const named = {
    LookupRequest: lookupRequestSchema,
    Company: strictSchemas.companySchema,
    SiteSession: strictSchemas.siteSessionSchema,
    LinkedInEngagement: strictSchemas.linkedInEngagementSchema,
    Contact: strictSchemas.contactSchema,
    ContactWithActivity: strictSchemas.contactWithActivitySchema,
    LookupResponse: strictSchemas.lookupResponseSchema,
    LookupResponseWithActivity: strictSchemas.lookupResponseWithActivitySchema,
    ErrorBody: strictSchemas.errorBodySchema,
  };
  for (const [id, schema] of Object.entries(named)) registry.add(schema, { id });
  const { schemas } = z.toJSONSchema(registry, {
    uri: (id) => `#/components/schemas/${id}`,
    io: 'input',
    // The schemas check timestamps, intents, counts and list lengths in the lightest way zod/mini
    // offers (refinements); say here what they are. Every number of the wire is a
    // count, and every list with a check is one the spec limits.
    override: ({ zodSchema, jsonSchema }) => {
      const { type, checks } = zodSchema._zod.def as { type: string; checks?: unknown[] };
      if (checks?.includes(isUtcTimestamp)) {
        Object.assign(jsonSchema, { pattern: UTC_TIMESTAMP.source, format: 'date-time' });
      }
      if (checks?.includes(isKnownIntent)) jsonSchema.enum = [...PURCHASE_INTENTS];
      if (type === 'number') Object.assign(jsonSchema, { type: 'integer', minimum: 0 });
      if (type === 'array' && checks?.length) jsonSchema.maxItems = MAX_ENTRIES;
    },
  });
  // Inside an OpenAPI document each schema is a fragment of it: no `$schema`, no `$id` of its own.
  return Object.fromEntries(
    Object.entries(schemas).map(([id, { $schema: _dialect, $id: _id, ...schema }]) => [id, schema]),
  );
}

const json = (ref: string) => ({
  'application/json': { schema: { $ref: `#/components/schemas/${ref}` } },
});
const requestIdHeader = { $ref: '#/components/headers/RequestId' };

export function openApiDocument() {
  const errorResponses = Object.fromEntries(
    Object.entries(ERRORS).map(([status, description]) => [
      status,
      {
        description,
        headers: {
          'x-request-id': requestIdHeader,
          ...(status === '405' && { allow: { $ref: '#/components/headers/Allow' } }),
          ...((status === '429' || status === '503') && {
            'retry-after': { schema: { type: 'integer', minimum: 0 } },
          }),
        },
        content: json('ErrorBody'),
      },
    ]),
  );
  return {
    openapi: '3.1.0',
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    info: {
      title: 'Service Lookup API',
      version: VERSION,
      summary: 'Find a contact by email, or a company by domain, among those the service observed.',
      description:
        'The lookup is in alpha: its answers may gain fields, which clients should keep. It is not ' +
        'an enrichment interface: only companies and contacts already observed are returned.',
    },
    servers: [
      {
        url: '{baseUrl}',
        variables: { baseUrl: { default: 'http://127.0.0.1:8787', description: 'Where it runs.' } },
      },
    ],
    // Any of the three key transports; `{}` stands for the third, the `secretKey` body field,
    // which OpenAPI has no security scheme for.
    security: [{ bearerKey: [] }, { headerKey: [] }, {}],
    paths: {
      [LOOKUP_PATH]: {
        post: {
          operationId: 'lookup',
          summary: 'Look up a contact by email or a company by domain',
          description:
            `Email wins over domain. A domain lookup answers the company and up to ${MAX_ENTRIES} contacts, ` +
            `most recently seen first. With \`includeActivity: true\` every contact carries \`site_activity\` ` +
            `(at most ${MAX_ENTRIES} sessions, most recent first) and \`linkedin_activity\`; without it, neither.`,
          requestBody: {
            required: true,
            description: `A JSON object of at most ${MAX_BODY_BYTES} bytes (the server's default limit).`,
            content: json('LookupRequest'),
          },
          responses: {
            200: {
              description: 'The company and its contacts.',
              headers: { 'x-request-id': requestIdHeader },
              content: {
                'application/json': {
                  schema: {
                    anyOf: [
                      { $ref: '#/components/schemas/LookupResponse' },
                      { $ref: '#/components/schemas/LookupResponseWithActivity' },
                    ],
                  },
                },
              },
            },
            ...errorResponses,
          },
        },
        options: {
          operationId: 'lookupOptions',
          security: [],
          responses: {
            204: {
              description: 'The methods allowed.',
              headers: { allow: { $ref: '#/components/headers/Allow' } },
            },
          },
        },
      },
    },
    components: {
      schemas: componentSchemas(),
      securitySchemes: {
        bearerKey: {
          type: 'http',
          scheme: 'bearer',
          description: `The server secret key as \`Authorization: Bearer <key>\`. ${KEY_GRAMMAR}`,
        },
        headerKey: {
          type: 'apiKey',
          in: 'header',
          name: KEY_HEADER,
          description:
            'The key in its own header, for proxies that strip `Authorization`. Failing both ' +
            `headers, the key may travel as the \`${KEY_BODY_FIELD}\` field of the body. ${KEY_GRAMMAR}`,
        },
      },
      headers: {
        RequestId: {
          description: 'The caller’s own `x-request-id` when it is a plain token, else a UUID.',
          schema: { type: 'string', pattern: '^[\\w.:-]{1,128}$' },
        },
        Allow: { schema: { type: 'string', const: 'POST, OPTIONS' } },
      },
    },
  };
}
