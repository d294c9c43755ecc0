/**
 * Issue 11: the OpenAPI document served at GET /api/service/openapi.json (by the route module and
 * by `service-lookup serve`), and the checker that holds every conformance answer to it.
 */
import { createServer } from 'node:http';
import document from '@service/lookup-client/openapi.json' with { type: 'json' };
import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import { withOpenApiRoute } from '../src/http/openapi-route.js';
import type { LookupResult, PurchaseIntent } from '../src/index.js';
import { expectDocumented } from './support/openapi-answers.js';
import { serve } from './support/serve.js';

describe('withOpenApiRoute', () => {
  let origin: string;
  let close: () => Promise<void>;
  beforeAll(async () => {
    const server = createServer(
      withOpenApiRoute((_request, response) => {
        response.writeHead(418).end('inner');
      }),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    close = () => new Promise((resolve) => server.close(() => resolve()));
  });
  afterAll(() => close());

  it.each(['/api/service/openapi.json', '/gateway/api/service/openapi.json/?v=1'])(
    'GET %s answers the shipped document',
    async (path) => {
      const response = await fetch(`${origin}${path}`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await response.json()).toEqual(document);
    },
  );

  it('HEAD answers the headers alone; other methods and paths go to the listener', async () => {
    const head = await fetch(`${origin}/api/service/openapi.json`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(Number(head.headers.get('content-length'))).toBeGreaterThan(1000);
    const post = await fetch(`${origin}/api/service/openapi.json`, { method: 'POST' });
    expect([post.status, await post.text()]).toEqual([418, 'inner']);
    const other = await fetch(`${origin}/api/service/lookup`);
    expect(other.status).toBe(418);
  });
});

describe('service-lookup serve', () => {
  it('serves the document at GET /api/service/openapi.json', async () => {
    const key = 'sk_live_openapi_route_0123456789abcdef';
    const served = await serve(['--key', key]);
    try {
      const response = await fetch(`${served.origin}/api/service/openapi.json`);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({ openapi: '3.1.0' });
    } finally {
      await served.stop();
    }
  }, 60_000);
});

describe('the conformance checker', () => {
  it('refuses a status the document does not list, and a body that does not match it', () => {
    expect(refusal(418, { error: 'teapot' })).toMatchObject({
      name: 'AssertionError',
      message: 'POST -> 418 is in the document: expected undefined to be defined',
    });
    const empty = refusal(200, { company: {}, contacts: [] });
    expect(empty).toMatchObject({ name: 'AssertionError' });
    expect(empty?.message).toMatch(/^POST -> 200 matches the document's schema: /);
    expect(empty?.actual).toContainEqual(
      expect.objectContaining({ instancePath: '/company', params: { missingProperty: 'domain' } }),
    );
    const unauthorized = refusal(401, { message: 'Unauthorized' });
    expect(unauthorized?.message).toMatch(/^POST -> 401 matches the document's schema: /);
    expect(unauthorized?.actual).toEqual([
      expect.objectContaining({
        keyword: 'required',
        params: { missingProperty: 'error' },
        message: "must have required property 'error'",
      }),
    ]);
    expect(refusal(401, { error: 'Unauthorized' })).toBeUndefined();
  });
});

describe('LookupResult', () => {
  it('is the wire contract of @service/lookup-client, in its strict reading', () => {
    expectTypeOf<
      LookupResult['company']['service_purchase_intent']
    >().toEqualTypeOf<PurchaseIntent>();
    expectTypeOf<LookupResult['contacts'][number]['site_activity']>().toEqualTypeOf<
      | Array<{
          active_time: number;
          start_time: string;
          end_time: string;
          pages_visited: string[];
          signals: string[];
          referrer: string;
          intent: PurchaseIntent;
          city: string | null;
          state: string | null;
          country: string | null;
        }>
      | undefined
    >();
  });
});

function answer(status: number, body: unknown) {
  return { status, headers: new Headers(), text: JSON.stringify(body), body };
}

/** What the checker threw for a POST answered so (its assertion), or undefined when it passed. */
function refusal(status: number, body: unknown) {
  try {
    expectDocumented('POST', answer(status, body));
    return undefined;
  } catch (error) {
    return error as Error & { actual?: unknown };
  }
}
