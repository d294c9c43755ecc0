/**
 * The client through the global `fetch`, intercepted by msw (how users test code that calls us):
 * the two response shapes, schema drift both ways, retries and the key fallback.
 */

import { sentBy } from '@service/test-support/sent-by';
import { HttpResponse, http } from 'msw';
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, expectTypeOf, it } from 'vitest';
import {
  ConnectionError,
  LookupClient,
  type LookupResponseWithActivity,
  NotFoundError,
  ResponseValidationError,
} from '../src/index.js';
import { company, contact, KEY, lookupBody, lookupBodyWithActivity } from './support/fixtures.js';

const baseUrl = 'https://lookup.example.com';
const endpoint = `${baseUrl}/api/service/lookup`;
const server = setupServer();

beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = new LookupClient({ secretKey: KEY, baseUrl });

function answer(body: unknown, init?: { status?: number; headers?: Record<string, string> }) {
  server.use(http.post(endpoint, () => HttpResponse.json(body as never, init)));
}

describe('through msw', () => {
  it('returns the parsed lookup', async () => {
    answer(lookupBody);
    await expect(client.lookup({ email: 'ada@acme.com' })).resolves.toEqual(lookupBody);
  });

  it('returns activity arrays with includeActivity: true', async () => {
    answer(lookupBodyWithActivity);
    const result = await client.lookup({ domain: 'acme.com' }, { includeActivity: true });
    expectTypeOf(result).toEqualTypeOf<LookupResponseWithActivity>();
    expect(result.contacts[0]?.linkedin_activity).toEqual([
      { start_time: '2026-01-03T00:00:00.000Z', linkedin_impressions: 4 },
    ]);
  });

  it('keeps fields the alpha API adds, at every level', async () => {
    answer({
      company: { ...company, employees: 40 },
      contacts: [{ ...contact, seniority: 'senior' }],
      took_ms: 3,
    });
    const result = await client.lookup({ domain: 'acme.com' });
    expect(result).toMatchObject({
      company: { employees: 40 },
      contacts: [{ seniority: 'senior' }],
      took_ms: 3,
    });
  });

  it('rejects activity missing when it was asked for', async () => {
    answer(lookupBody);
    const error = await client
      .lookup({ domain: 'acme.com' }, { includeActivity: true })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues.map((issue) => issue.path)).toEqual([
      ['contacts', 0, 'site_activity'],
      ['contacts', 0, 'linkedin_activity'],
    ]);
  });

  it('rejects a field of the wrong type, naming its path and what was expected', async () => {
    answer({ ...lookupBody, company: { ...company, service_sessions: '3' } });
    const error = await client.lookup({ domain: 'acme.com' }).catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toBe(
      'Lookup response does not match the schema: company.service_sessions: expected number',
    );
  });

  it('rejects a response without a contacts array', async () => {
    answer({ company });
    await expect(client.lookup({ domain: 'acme.com' })).rejects.toBeInstanceOf(
      ResponseValidationError,
    );
  });

  // The API's growth must not break calls.
  const grown: Array<[string, unknown]> = [
    [
      'an intent level added later',
      { ...lookupBody, company: { ...company, service_purchase_intent: 'none' } },
    ],
    [
      'a timestamp with +00:00',
      { ...lookupBody, company: { ...company, service_last_seen: '2026-01-03T03:04:05+00:00' } },
    ],
    ['11 contacts', { company, contacts: Array.from({ length: 11 }, () => contact) }],
  ];

  it.each(grown)('keeps working with %s, returning it as sent', async (_label, body) => {
    answer(body);
    await expect(client.lookup({ domain: 'acme.com' })).resolves.toEqual(body);
  });

  it.each(grown)('strict: true rejects %s', async (_label, body) => {
    answer(body);
    const strict = new LookupClient({ secretKey: KEY, baseUrl, strict: true });
    await expect(strict.lookup({ domain: 'acme.com' })).rejects.toBeInstanceOf(
      ResponseValidationError,
    );
  });

  it('retries a 503 that says Retry-After: 0, then succeeds', async () => {
    let calls = 0;
    server.use(
      http.post(endpoint, () => {
        calls++;
        return calls === 1
          ? HttpResponse.json(
              { error: 'Unavailable' },
              { status: 503, headers: { 'retry-after': '0' } },
            )
          : HttpResponse.json(lookupBody);
      }),
    );
    await expect(client.lookup({ domain: 'acme.com' })).resolves.toEqual(lookupBody);
    expect(calls).toBe(2);
  });

  it('a network error is a ConnectionError', async () => {
    server.use(http.post(endpoint, () => HttpResponse.error()));
    const noRetries = new LookupClient({ secretKey: KEY, baseUrl, maxRetries: 0 });
    await expect(noRetries.lookup({ domain: 'acme.com' })).rejects.toBeInstanceOf(ConnectionError);
  });

  it('a 404 is a NotFoundError with the body', async () => {
    answer({ error: 'Not found' }, { status: 404 });
    const error = await client
      .lookup({ email: 'nobody@acme.com' })
      .catch((reason: unknown) => reason);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, body: { error: 'Not found' } });
  });

  it('falls back to the body field behind a gateway that strips key headers', async () => {
    const tries: string[] = [];
    server.use(
      http.post(endpoint, async ({ request }) => {
        const body = (await request.json()) as { secretKey?: string };
        tries.push(sentBy(request.headers));
        return body.secretKey === KEY
          ? HttpResponse.json(lookupBody)
          : HttpResponse.json({ error: 'Unauthorized' }, { status: 401 });
      }),
    );
    const auto = new LookupClient({ secretKey: KEY, baseUrl });
    await auto.lookup({ domain: 'acme.com' });
    await auto.lookup({ domain: 'acme.com' });
    expect(tries).toEqual(['bearer', 'header', 'body', 'body']);
  });
});
