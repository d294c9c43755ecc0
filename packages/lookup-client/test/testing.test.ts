/**
 * `@service/lookup-client/testing` as an app developer uses it: msw's `setupServer` with the
 * lookup handlers, the client calling the global fetch, no network. The full behaviour table the
 * real server passes runs against the same double in lookup-core's conformance tests.
 */
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  ConfigurationError,
  InvalidInputError,
  LookupClient,
  type LookupQuery,
  type LookupResponseWithActivity,
  NotFoundError,
  UnauthorizedError,
} from '../src/index.js';
import { lookupHandlers } from '../src/testing.js';
import { company, contact, engagement, session } from './support/fixtures.js';

const KEY = 'sk_live_test_0123456789abcdefghijkl';
const OTHER_KEY = 'sk_live_other_0123456789abcdefghijk';
const baseUrl = 'https://lookup.example.com';

const older = { ...contact, email: 'bob@acme.com', service_last_seen: '2026-01-02T09:00:00.000Z' };
const acme: LookupResponseWithActivity = {
  company,
  contacts: [
    { ...older, site_activity: [], linkedin_activity: [] },
    { ...contact, site_activity: [session], linkedin_activity: [engagement] },
  ],
};
const globex: LookupResponseWithActivity = {
  company: { ...company, domain: 'globex.com', name: 'Globex' },
  contacts: [],
};

const server = setupServer(
  ...lookupHandlers({
    workspaces: [
      { secretKeys: [KEY], companies: [acme] },
      { secretKeys: [OTHER_KEY], companies: [globex] },
    ],
  }),
);
beforeAll(() => server.listen({ onUnhandledFrame: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => server.close());

const client = new LookupClient({ secretKey: KEY, baseUrl, maxRetries: 0 });

describe('lookupHandlers', () => {
  it('answers a domain lookup with contacts most recently seen first, without activity', async () => {
    const result = await client.lookup({ domain: 'https://www.ACME.com/pricing' });
    expect(result).toEqual({ company, contacts: [contact, older] });
  });

  it('answers an email lookup with that contact, with activity when asked', async () => {
    const result = await client.lookup({ email: ' ADA@acme.com ' }, { includeActivity: true });
    expect(result.contacts).toEqual([
      { ...contact, site_activity: [session], linkedin_activity: [engagement] },
    ]);
  });

  it('answers includeActivity written in the query as the server does', async () => {
    const result = await client.lookup({ email: 'ada@acme.com', includeActivity: true });
    expect(result.contacts).toEqual([
      { ...contact, site_activity: [session], linkedin_activity: [engagement] },
    ]);
  });

  it('sees nothing of a query key the wire has no place for: the client refuses it first', async () => {
    const query = { domain: 'acme.com', include_activity: true } as LookupQuery;
    await expect(client.lookup(query)).rejects.toBeInstanceOf(ConfigurationError);
  });

  it('keeps each workspace to its own keys, and refuses unknown ones on every transport', async () => {
    await expect(client.lookup({ domain: 'globex.com' })).rejects.toBeInstanceOf(NotFoundError);
    const other = new LookupClient({ secretKey: OTHER_KEY, baseUrl, keyTransport: 'body' });
    await expect(other.lookup({ domain: 'globex.com' })).resolves.toMatchObject({
      company: { name: 'Globex' },
    });
    const stranger = new LookupClient({ secretKey: `${KEY}x`, baseUrl });
    await expect(stranger.lookup({ domain: 'acme.com' })).rejects.toMatchObject({
      constructor: UnauthorizedError,
      transportsTried: ['bearer', 'header', 'body'],
    });
  });

  it('answers 400 as the server does', async () => {
    await expect(client.lookup({ email: 'not-an-email' })).rejects.toBeInstanceOf(
      InvalidInputError,
    );
  });

  it('answers on a given origin only, and 404 off the lookup path there', async () => {
    server.use(
      ...lookupHandlers({ baseUrl, workspaces: [{ secretKeys: [KEY], companies: [acme] }] }),
    );
    const response = await fetch(`${baseUrl}/elsewhere`, { method: 'POST' });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ error: 'Not found' });
  });

  it('refuses fixture data the server could not have sent, naming where', () => {
    expect(() =>
      lookupHandlers({
        workspaces: [
          { secretKeys: [KEY], companies: [{ company: { ...company, domain: 1 } } as never] },
        ],
      }),
    ).toThrow('workspaces[0].companies[0].company.domain: expected string');
    expect(() =>
      lookupHandlers({ workspaces: [{ secretKeys: ['sk_live_short'], companies: [] }] }),
    ).toThrow(/workspaces\[0\]/);
  });
});
