/**
 * A third way through the behaviour table: the msw test double of
 * `@service/lookup-client/testing`, loaded with what the store under test holds, so every row the
 * real handler passes is a row the double must pass too (the double cannot drift).
 */
import { type LookupResponseWithActivity, schemas } from '@service/lookup-client';
import { lookupHandlers } from '@service/lookup-client/testing';
import { getResponse } from 'msw';
import type { KeyEntry, LookupStore } from '../../src/index.js';
import { init, LOOKUP_PATH, read, type Transport } from './transport.js';

const ORIGIN = 'http://lookup.test';

/** Every observed company of every workspace, with all its contacts and their activity. */
async function snapshot(store: LookupStore, keys: readonly KeyEntry[]) {
  const byWorkspace = new Map<string, LookupResponseWithActivity[]>();
  for (const workspace of new Set(keys.map((entry) => entry.workspace ?? 'default'))) {
    const companies: LookupResponseWithActivity[] = [];
    for await (const { company, contacts } of store.readAggregates({ workspace })) {
      const full = { workspace, includeActivity: true };
      const answer = await store.lookup({ ...full, domain: company.domain });
      if (answer === null) throw new Error(`no answer for ${company.domain}`);
      // A domain lookup answers 10 contacts; the others are fetched one by one.
      for (const { email } of contacts.slice(answer.contacts.length)) {
        answer.contacts.push(...((await store.lookup({ ...full, email }))?.contacts ?? []));
      }
      companies.push(schemas.lookupResponseWithActivitySchema.parse(answer));
    }
    byWorkspace.set(workspace, companies);
  }
  return byWorkspace;
}

export async function doubleTransport(
  store: LookupStore,
  keys: readonly KeyEntry[],
  options: { maxBodyBytes: number },
): Promise<Transport> {
  const companies = await snapshot(store, keys);
  const handlers = lookupHandlers({
    baseUrl: ORIGIN,
    maxBodyBytes: options.maxBodyBytes,
    workspaces: [...companies].map(([workspace, observed]) => ({
      secretKeys: keys.filter((k) => (k.workspace ?? 'default') === workspace).map((k) => k.key),
      companies: observed,
    })),
  });
  return {
    send: async (spec) => {
      const request = new Request(`${ORIGIN}${spec.path ?? LOOKUP_PATH}`, init(spec));
      const response = await getResponse(handlers, request);
      if (response === undefined) throw new Error(`the double did not answer ${request.url}`);
      return read(response);
    },
    close: async () => {},
  };
}
