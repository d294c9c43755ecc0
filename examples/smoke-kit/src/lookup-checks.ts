import {
  InvalidInputError,
  LookupClient,
  NotFoundError,
  UnauthorizedError,
} from '@service/lookup-client';
import { expect, it } from 'vitest';

/** What the server under test was loaded with: a key it accepts and a contact it observed. */
export interface LookupSample {
  secretKey: string;
  email: string;
  /** The domain of that contact's company. */
  domain: string;
  /** A contact observed only in another workspace: this key must not see it. */
  otherWorkspaceEmail: string;
}

/** A well-formed key that no example accepts. */
const UNKNOWN_KEY = 'sk_live_not_a_key_of_this_server_0000';

/**
 * The smoke checks of issue 7, through `@service/lookup-client` over real HTTP: a lookup with
 * activity, and the spec's three errors as the client's typed errors. `server.baseUrl` is read
 * when the tests run, after the server started.
 */
export function lookupChecks(server: { readonly baseUrl: string }, sample: LookupSample): void {
  // No retries: every answer checked here is final, and a retry would only hide a flaky server.
  const client = (secretKey = sample.secretKey) =>
    new LookupClient({ baseUrl: server.baseUrl, secretKey, maxRetries: 0 });

  it('answers a lookup by email with the company, the contact and its activity', async () => {
    const { company, contacts } = await client().lookup(
      { email: sample.email.toUpperCase() },
      { includeActivity: true },
    );
    expect(company.domain).toBe(sample.domain);
    expect(contacts.map((contact) => contact.email)).toEqual([sample.email]);
    expect(contacts[0]?.site_activity.length).toBeGreaterThan(0);
    expect(contacts[0]?.linkedin_activity).toBeInstanceOf(Array);
  });

  it('answers a lookup by domain without activity arrays', async () => {
    const { company, contacts } = await client().lookup({
      domain: `https://www.${sample.domain}/`,
    });
    expect(company.domain).toBe(sample.domain);
    expect(contacts.length).toBeGreaterThan(0);
    expect(contacts.length).toBeLessThanOrEqual(10);
    for (const contact of contacts) expect(contact).not.toHaveProperty('site_activity');
  });

  it('400 Invalid input: neither email nor domain (an empty form field)', async () => {
    const error = await client()
      .lookup({ email: '' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvalidInputError);
    expect(error).toMatchObject({ status: 400, body: { error: 'Invalid input' } });
  });

  it('401 Unauthorized: a key the server does not know, after every key transport', async () => {
    const error = await client(UNKNOWN_KEY)
      .lookup({ email: sample.email })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ status: 401, body: { error: 'Unauthorized' } });
  });

  it("404 Not found: a contact observed only in another key's workspace", async () => {
    const error = await client()
      .lookup({ email: sample.otherWorkspaceEmail })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NotFoundError);
    expect(error).toMatchObject({ status: 404, body: { error: 'Not found' } });
  });
}
