/**
 * The answer cache through the handler, on a store the calling file opens: an in-process ingest is
 * seen by the very next lookup (company, contacts, 404s, replacements, contacts changing company),
 * and one workspace never gets another's answer. Every answer is compared with the store read
 * with no cache at all (`uncached`), so a kept answer that went stale fails here.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLookupHandler, type LookupStore } from '../../src/index.js';
import { ann, baseEvents, KEY, KEYS, OTHER_KEY, session } from './events.js';

/** `uncached` reads the same database as `cached` when `shared`, else a copy fed the same events. */
export type Stores = { cached: LookupStore; uncached: LookupStore; shared: boolean };

export function describeCache(openStores: () => Promise<Stores>) {
  let stores: Stores;
  beforeAll(async () => {
    stores = await openStores();
  });
  afterAll(async () => {
    await stores?.cached.close();
    await stores?.uncached.close();
  });
  const ingest = async (events: Array<Record<string, unknown>>) => {
    await stores.cached.ingest(events);
    if (!stores.shared) await stores.uncached.ingest(events);
  };

  /** Looks up through the handler, as a client would; returns status and body text. */
  async function ask(store: LookupStore, body: object, key = KEY) {
    const handler = createLookupHandler({ store, keys: KEYS });
    const response = await handler(
      new Request('http://lookup.test/api/service/lookup', {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      }),
    );
    return { status: response.status, text: await response.text() };
  }
  /** Asks twice on the cached store (the second is answered from the cache), once on the other. */
  async function expectCurrent(body: object, key = KEY) {
    const first = await ask(stores.cached, body, key);
    const again = await ask(stores.cached, body, key);
    const truth = await ask(stores.uncached, body, key);
    expect(again).toEqual(first);
    expect(first).toEqual(truth);
    return first;
  }

  it('an in-process ingest is in the very next lookup: company, contacts and a first-seen company', async () => {
    await ingest(baseEvents());
    const lookups = [
      { domain: 'acme.com' },
      { domain: 'acme.com', includeActivity: true },
      { email: 'ann@acme.com' },
      { email: 'bob@acme.com', includeActivity: true },
      { domain: 'initech.io' },
      { domain: 'brand-new.io' },
      { email: 'new.person@brand-new.io' },
    ];
    for (const body of lookups) await expectCurrent(body);
    expect((await ask(stores.cached, { domain: 'brand-new.io' })).status).toBe(404);

    // An anonymous visit to acme.com changes the company part of every acme answer, the email
    // lookups' too; a first visit from brand-new.io makes its kept 404s stale.
    await ingest([
      session('c-anon', '2025-03-09T10:00:00Z', { intent: 'very_high' }),
      session('c-new', '2025-03-09T11:00:00Z', {
        company: { domain: 'brand-new.io', name: 'Brand New' },
        contact: { email: 'new.person@brand-new.io' },
      }),
    ]);
    for (const body of lookups) await expectCurrent(body);
    const acme = JSON.parse((await ask(stores.cached, { email: 'bob@acme.com' })).text);
    expect(acme.company.service_sessions).toBe(5);
    expect((await ask(stores.cached, { domain: 'brand-new.io' })).status).toBe(200);
    expect((await ask(stores.cached, { email: 'new.person@brand-new.io' })).status).toBe(200);
  });

  it('a replaced event, and a contact moving to another company, change the kept answers', async () => {
    await ingest([
      session('move-1', '2025-06-01T10:00:00Z', {
        company: { domain: 'old-home.io' },
        contact: { email: 'mover@mail.io' },
      }),
      session('move-2', '2025-06-01T11:00:00Z', {
        company: { domain: 'old-home.io' },
        contact: { email: 'stayer@mail.io' },
      }),
    ]);
    const lookups = [
      { domain: 'old-home.io' },
      { domain: 'new-home.io' },
      { email: 'mover@mail.io' },
    ];
    for (const body of lookups) await expectCurrent(body);
    // The contact's latest event is at another company: old-home.io no longer lists it.
    await ingest([
      session('move-3', '2025-06-02T10:00:00Z', {
        company: { domain: 'new-home.io' },
        contact: { email: 'mover@mail.io' },
      }),
    ]);
    for (const body of lookups) await expectCurrent(body);
    const old = JSON.parse((await ask(stores.cached, { domain: 'old-home.io' })).text);
    expect(old.contacts.map((c: { email: string }) => c.email)).toEqual(['stayer@mail.io']);
    // The same event id with other content replaces it: the answers follow.
    await ingest([
      session('move-3', '2025-06-02T10:00:00Z', {
        company: { domain: 'old-home.io' },
        contact: { email: 'mover@mail.io' },
        active_time: 999,
      }),
    ]);
    for (const body of lookups) await expectCurrent(body);
    expect((await ask(stores.cached, { domain: 'new-home.io' })).status).toBe(404);
  });

  it("never answers one workspace's lookup with another's", async () => {
    await ingest([
      session('ws-a', '2025-07-01T10:00:00Z', {
        company: { domain: 'both.io', name: 'Default name' },
        contact: { ...ann, email: 'sam@both.io' },
      }),
      session('ws-b', '2025-07-01T10:00:00Z', {
        workspace: 'other',
        company: { domain: 'both.io', name: 'Other name' },
        contact: { email: 'sam@both.io', name: 'Other Sam' },
      }),
    ]);
    for (let round = 0; round < 3; round++) {
      for (const body of [{ domain: 'both.io' }, { email: 'sam@both.io', includeActivity: true }]) {
        const mine = await expectCurrent(body, KEY);
        const theirs = await expectCurrent(body, OTHER_KEY);
        expect(JSON.parse(mine.text).company.name).toBe('Default name');
        expect(JSON.parse(theirs.text).company.name).toBe('Other name');
      }
    }
    // A change in one workspace leaves the other's answer as it was, and changes its own.
    await ingest([
      session('ws-b2', '2025-07-02T10:00:00Z', {
        workspace: 'other',
        company: { domain: 'both.io', name: 'Renamed' },
      }),
    ]);
    expect(JSON.parse((await expectCurrent({ domain: 'both.io' }, KEY)).text).company.name).toBe(
      'Default name',
    );
    expect(
      JSON.parse((await expectCurrent({ domain: 'both.io' }, OTHER_KEY)).text).company.name,
    ).toBe('Renamed');
  });

  it('tells watchers what each committed batch changed', async () => {
    const heard: unknown[] = [];
    const stop = stores.cached.watch?.((event) => heard.push(event));
    await ingest([
      session('w-1', '2025-08-01T10:00:00Z', { workspace: 'watched', company: { domain: 'w.io' } }),
    ]);
    stop?.();
    await ingest([
      session('w-2', '2025-08-01T10:00:00Z', { workspace: 'watched', company: { domain: 'x.io' } }),
    ]);
    expect(heard).toContainEqual({ workspace: 'watched', domains: ['w.io'], emails: [] });
    expect(heard).not.toContainEqual({ workspace: 'watched', domains: ['x.io'], emails: [] });
  });
}
