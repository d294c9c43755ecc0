/**
 * Ingest: counts, idempotency, exact replacement, rejection with line numbers, interruption, and
 * the aggregates crm-sync reads. Each test writes to a workspace of its own in the file's store.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { ChangeNotice, LookupStore, ObservedCompany } from '../../src/index.js';
import { ann, baseEvents, linkedin, session } from './events.js';

let workspaces = 0;
const newWorkspace = () => `ingest-${++workspaces}`;
const inWorkspace = (workspace: string, events: Array<Record<string, unknown>>) =>
  events.map((e) => ({ ...e, workspace }));

async function aggregates(store: LookupStore, workspace: string): Promise<ObservedCompany[]> {
  const all: ObservedCompany[] = [];
  for await (const observed of store.readAggregates({ workspace })) all.push(observed);
  return all;
}

export function describeIngest(openStore: () => Promise<LookupStore>) {
  let store: LookupStore;
  beforeAll(async () => {
    store = await openStore();
  });
  afterAll(() => store?.close());

  it('maintains the aggregates crm-sync reads', async () => {
    const ws = newWorkspace();
    const result = await store.ingest(inWorkspace(ws, baseEvents().slice(0, 7)));
    expect(result).toEqual({ ingested: 7, unchanged: 0, replaced: 0, rejected: [] });
    const [acme, initech, ...rest] = await aggregates(store, ws);
    expect(rest).toEqual([]);
    expect(initech?.company.domain).toBe('initech.io');
    expect(acme?.company).toEqual({
      domain: 'acme.com',
      name: 'Acme',
      industry: 'Software',
      visitors: 3,
      identifiedContacts: 2,
      sessions: 4,
      activeSeconds: 480,
      pageViews: 8,
      highIntentSessions: 2,
      purchaseIntent: 'very_high',
      signals: ['demo', 'pricing'],
      firstSeen: '2025-02-20T08:00:00.000Z',
      lastSeen: '2025-03-05T08:00:00.000Z',
      firstSession: { referrer: 'https://www.google.com/', utm: {} },
      latestSession: { referrer: 'https://www.google.com/', utm: {} },
      linkedin: { impressions: 20, clicks: 4, likes: 2, shares: 0, comments: 2 },
    });
    expect(acme?.contacts.map((c) => c.email)).toEqual(['ann@acme.com', 'bob@acme.com']);
    expect(acme?.contacts[1]).toEqual({
      email: 'bob@acme.com',
      name: 'Bob Stone',
      title: 'Engineer',
      companyDomain: 'acme.com',
      sessions: 1,
      activeSeconds: 120,
      pageViews: 2,
      highIntentSessions: 0,
      purchaseIntent: 'low',
      signals: ['pricing'],
      firstSeen: '2025-03-03T10:00:00.000Z',
      lastSeen: '2025-03-03T10:05:00.000Z',
      firstSession: {
        referrer: 'https://www.google.com/',
        utm: { source: 'google', medium: 'cpc' },
      },
      latestSession: {
        referrer: 'https://www.google.com/',
        utm: { source: 'google', medium: 'cpc' },
      },
      linkedin: { impressions: 0, clicks: 0, likes: 0, shares: 0, comments: 0 },
      city: 'Berlin',
      state: 'Berlin',
      country: 'DE',
    });
  });

  it('purchase intent: the highest of the 10 latest sessions within 30 days of the latest one', async () => {
    const ws = newWorkspace();
    const company = { domain: 'intent.io' };
    await store.ingest(
      inWorkspace(ws, [
        session('old-very-high', '2025-01-01T00:00:00Z', { company, intent: 'very_high' }),
        session('recent-medium', '2025-03-01T00:00:00Z', { company, intent: 'medium' }),
        session('latest-low', '2025-03-10T00:00:00Z', { company, intent: 'low' }),
        linkedin('li', '2025-04-01T00:00:00Z', { company: { domain: 'quiet.io' } }),
      ]),
    );
    const [intent, quiet] = await aggregates(store, ws);
    expect(intent?.company.purchaseIntent).toBe('medium');
    expect(quiet?.company).toMatchObject({
      sessions: 0,
      purchaseIntent: null,
      firstSession: null,
      latestSession: null,
    });
  });

  it('re-ingesting the same events changes nothing', async () => {
    const ws = newWorkspace();
    const events = inWorkspace(ws, baseEvents());
    await store.ingest(events);
    const before = await aggregates(store, ws);
    const again = await store.ingest(events);
    expect(again).toEqual({ ingested: 0, unchanged: events.length, replaced: 0, rejected: [] });
    expect(await aggregates(store, ws)).toEqual(before);
  });

  it('a batch mixing new ids with stored ones stores the new and compares the stored', async () => {
    // The first batch is all new (written without a per-row check); the second holds a stored
    // id, an unchanged one and a new one, and must come out exactly as one clean ingest does.
    const ws = newWorkspace();
    const clean = newWorkspace();
    const kept = session('m0', '2025-01-01T00:00:00Z');
    const stored = [
      kept,
      session('m1', '2025-01-02T00:00:00Z'),
      session('m2', '2025-01-03T00:00:00Z'),
    ];
    const changed = session('m1', '2025-01-02T00:00:00Z', { intent: 'very_high', contact: ann });
    const added = session('m3', '2025-01-04T00:00:00Z', { company: { domain: 'b.io' } });
    expect(await store.ingest(inWorkspace(ws, stored))).toMatchObject({ ingested: 3 });
    const second = await store.ingest(inWorkspace(ws, [kept, changed, added]));
    expect(second).toEqual({ ingested: 1, unchanged: 1, replaced: 1, rejected: [] });
    await store.ingest(
      inWorkspace(clean, [...stored.map((e) => (e.id === 'm1' ? changed : e)), added]),
    );
    expect(await aggregates(store, ws)).toEqual(await aggregates(store, clean));
  });

  it('the same id with different content replaces the earlier version exactly once', async () => {
    const ws = newWorkspace();
    const clean = newWorkspace();
    const moved = session('s3', '2025-03-09T10:00:00.000Z', {
      contact: { email: 'bob@acme.com', title: 'VP Engineering' },
      company: { domain: 'initech.io' },
      intent: 'very_high',
      signals: ['security'],
    });
    await store.ingest(inWorkspace(ws, baseEvents()));
    const result = await store.ingest(inWorkspace(ws, [moved]));
    expect(result).toMatchObject({ ingested: 0, unchanged: 0, replaced: 1 });
    const finalVersions = baseEvents().map((e) => (e.id === 's3' ? moved : e));
    await store.ingest(inWorkspace(clean, finalVersions));
    const replaced = await aggregates(store, ws);
    expect(replaced).toEqual(await aggregates(store, clean));
    const acme = replaced.find((o) => o.company.domain === 'acme.com');
    expect(acme?.company).toMatchObject({
      sessions: 3,
      visitors: 2,
      identifiedContacts: 1,
      signals: ['demo', 'pricing'],
    });
    const initech = replaced.find((o) => o.company.domain === 'initech.io');
    expect(initech?.contacts.find((c) => c.email === 'bob@acme.com')).toMatchObject({
      companyDomain: 'initech.io',
      title: 'VP Engineering',
      sessions: 1,
      purchaseIntent: 'very_high',
    });
  });

  it('a company left without events by a replacement is no longer observed', async () => {
    const ws = newWorkspace();
    await store.ingest(
      inWorkspace(ws, [session('x', '2025-01-01T00:00:00Z', { company: { domain: 'gone.io' } })]),
    );
    await store.ingest(
      inWorkspace(ws, [session('x', '2025-01-01T00:00:00Z', { company: { domain: 'kept.io' } })]),
    );
    expect((await aggregates(store, ws)).map((o) => o.company.domain)).toEqual(['kept.io']);
    expect(await store.lookup({ workspace: ws, domain: 'gone.io' })).toBeNull();
  });

  it('a second version of an id in the same batch replaces the first', async () => {
    const ws = newWorkspace();
    const result = await store.ingest(
      inWorkspace(ws, [
        session('dup', '2025-01-01T00:00:00Z', { active_time: 10 }),
        session('dup', '2025-01-01T00:00:00Z', { active_time: 30 }),
      ]),
    );
    expect(result).toMatchObject({ ingested: 1, replaced: 1 });
    expect((await aggregates(store, ws))[0]?.company).toMatchObject({
      sessions: 1,
      activeSeconds: 30,
    });
  });

  it('an exact repeat of an id in the same batch is unchanged and does not end the batch', async () => {
    const ws = newWorkspace();
    const a = session('rep-a', '2025-01-01T00:00:00Z', { workspace: ws });
    const b = session('rep-b', '2025-01-02T00:00:00Z', { workspace: ws });
    const committed: number[] = [];
    const result = await store.ingest([a, a, b, a], {
      batchSize: 10,
      onProgress: (p) => committed.push(p.ingested),
    });
    expect(result).toEqual({ ingested: 2, unchanged: 2, replaced: 0, rejected: [] });
    expect(committed).toEqual([2]);
    expect((await aggregates(store, ws))[0]?.company.sessions).toBe(2);
  });

  it('rejects malformed lines with their line number and reason, and ingests the rest', async () => {
    const ws = newWorkspace();
    const good = (id: string) =>
      JSON.stringify({ ...session(id, '2025-01-01T00:00:00Z'), workspace: ws });
    const lines = [
      good('a'),
      '',
      '{"type": "session", "id": ',
      JSON.stringify({
        ...session('b', '2025-01-01T00:00:00Z'),
        workspace: ws,
        visitor_id: undefined,
      }),
      JSON.stringify({
        ...session('c', '2025-01-01T00:00:00Z'),
        workspace: ws,
        active_time: '120',
      }),
      JSON.stringify({
        ...session('d', '2025-01-02T00:00:00Z'),
        workspace: ws,
        end_time: '2025-01-01T00:00:00Z',
      }),
      JSON.stringify({ ...session('e', '2025-01-01T00:00:00Z'), workspace: ws, type: 'pageview' }),
      JSON.stringify({
        ...session('f', '2025-01-01T00:00:00Z'),
        workspace: ws,
        contact: { email: 'nobody' },
      }),
      JSON.stringify({
        ...session('g', '2025-01-01T00:00:00Z'),
        workspace: ws,
        start_time: 'yesterday',
      }),
      JSON.stringify({
        ...session('h', '2025-01-01T00:00:00Z'),
        workspace: ws,
        referrer: 'a\u0000b',
      }),
      '[1, 2]',
      '   ',
      good('z'),
    ];
    const result = await store.ingest(lines);
    expect(result.ingested).toBe(2);
    expect(result.rejected.map((r) => r.line)).toEqual([3, 4, 5, 6, 7, 8, 9, 10, 11]);
    const reasons = Object.fromEntries(result.rejected.map((r) => [r.line, r.reason]));
    expect(reasons[3]).toBe('malformed JSON');
    expect(reasons[4]).toMatch(/^visitor_id: /);
    expect(reasons[5]).toMatch(/^active_time: /);
    expect(reasons[6]).toBe('end_time: end_time is before start_time');
    expect(reasons[7]).toMatch(/^type: /);
    expect(reasons[8]).toBe('contact.email: not an email address');
    expect(reasons[9]).toMatch(/^start_time: /);
    expect(reasons[10]).toMatch(/NUL/);
    expect(reasons[11]).toBe('an event must be a JSON object');
    expect((await aggregates(store, ws))[0]?.company.sessions).toBe(2);
  });

  /** The `ingested` counts `onProgress` is given for `count` new sessions in batches of `batchSize`. */
  async function progressOf(count: number, batchSize: number): Promise<number[]> {
    const ws = newWorkspace();
    const seen: number[] = [];
    const events = Array.from({ length: count }, (_, i) =>
      session(`p${i}`, '2025-01-01T00:00:00Z', { workspace: ws }),
    );
    await store.ingest(events, { batchSize, onProgress: (p) => seen.push(p.ingested) });
    return seen;
  }

  it('reports progress after each committed batch', async () => {
    expect(await progressOf(25, 10)).toEqual([10, 20, 25]);
  });

  it('starts with a batch of 10,000 and makes each next one four times larger, up to the batch size', async () => {
    // The database starts on the first 10,000 events while the rest is read and validated.
    expect(await progressOf(75_000, 30_000)).toEqual([10_000, 40_000, 70_000, 75_000]);
  }, 60_000);

  it('tells onCommitted, after each batch, exactly the companies and contacts it changed', async () => {
    const ws = newWorkspace();
    const first = [
      session('n1', '2025-01-01T00:00:00Z', { workspace: ws, contact: ann }),
      session('n2', '2025-01-01T00:00:00Z', { workspace: ws, company: { domain: 'b.io' } }),
    ];
    const seen: ChangeNotice[][] = [];
    await store.ingest(first, { onCommitted: (n) => seen.push(n) });
    expect(seen).toEqual([
      [{ workspace: ws, domains: ['acme.com', 'b.io'], emails: ['ann@acme.com'] }],
    ]);
    seen.length = 0;
    // Unchanged events notify nothing; a replacement names the old and the new company.
    const moved = { ...first[0], company: { domain: 'c.io' } };
    await store.ingest([first[1], moved], { onCommitted: (n) => seen.push(n) });
    expect(seen).toEqual([
      [{ workspace: ws, domains: ['acme.com', 'c.io'], emails: ['ann@acme.com'] }],
    ]);
    seen.length = 0;
    await store.ingest([first[1]], { onCommitted: (n) => seen.push(n) });
    expect(seen).toEqual([]);
  });

  it('an interrupted ingest keeps what was committed, and a re-run double-counts nothing', async () => {
    const ws = newWorkspace();
    const clean = newWorkspace();
    const events = Array.from({ length: 40 }, (_, i) =>
      session(`i${i}`, `2025-01-01T00:${String(i).padStart(2, '0')}:00Z`, {
        workspace: ws,
        contact: i % 3 === 0 ? ann : undefined,
        company: { domain: `c${i % 4}.io` },
      }),
    );
    async function* failingAfter(n: number) {
      for (const [i, e] of events.entries()) {
        if (i === n) throw new Error('source died');
        yield e;
      }
    }
    await expect(store.ingest(failingAfter(25), { batchSize: 10 })).rejects.toThrow('source died');
    const partial = await aggregates(store, ws);
    expect(partial.reduce((n, o) => n + o.company.sessions, 0)).toBe(20); // two whole batches, no half
    const rerun = await store.ingest(events, { batchSize: 10 });
    expect(rerun).toMatchObject({ ingested: 20, unchanged: 20, replaced: 0 });
    await store.ingest(events.map((e) => ({ ...e, workspace: clean })));
    expect(await aggregates(store, ws)).toEqual(await aggregates(store, clean));
  });

  it('reads every company in domain order, in pages, of the default workspace by default', async () => {
    const ws = newWorkspace();
    const events = Array.from({ length: 230 }, (_, i) =>
      linkedin(`r${i}`, '2025-01-01T00:00:00Z', {
        workspace: ws,
        company: { domain: `d${String(i).padStart(3, '0')}.io` },
      }),
    );
    await store.ingest(events.reverse());
    const domains = (await aggregates(store, ws)).map((o) => o.company.domain);
    expect(domains).toHaveLength(230);
    expect(domains).toEqual([...domains].sort());
    await store.ingest([
      session('default-ws', '2025-01-01T00:00:00Z', { company: { domain: 'default.io' } }),
    ]);
    const defaults: string[] = [];
    for await (const o of store.readAggregates()) defaults.push(o.company.domain);
    expect(defaults).toContain('default.io');
    expect(defaults).not.toContain('d000.io');
  });

  it('any order, batching, repetition and replacement of versions ends in the aggregates of the final versions', async () => {
    const version = fc.record({
      id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'),
      type: fc.constantFrom('session', 'linkedin'),
      domain: fc.constantFrom('one.io', 'two.io'),
      email: fc.constantFrom(null, 'x@one.io', 'y@two.io'),
      intent: fc.constantFrom('low', 'medium', 'high', 'very_high'),
      visitor: fc.constantFrom('v1', 'v2', 'v3'),
      signals: fc.subarray(['pricing', 'demo', 'docs']),
      active: fc.nat(600),
      impressions: fc.nat(50),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(version, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 7 }),
        async (versions, batchSize) => {
          const ws = newWorkspace();
          const clean = newWorkspace();
          // Distinct times for every version keep "latest" unambiguous; names depend only on the key.
          const events = versions.map((v, i) => {
            const at = new Date(Date.UTC(2025, 0, 1) + i * 7 * 60_000).toISOString();
            const fields = {
              workspace: ws,
              company: { domain: v.domain, name: v.domain.toUpperCase() },
              contact: v.email ? { email: v.email, name: v.email.split('@')[0] } : null,
            };
            return v.type === 'session'
              ? session(v.id, at, {
                  ...fields,
                  intent: v.intent,
                  visitor_id: v.visitor,
                  signals: v.signals,
                  active_time: v.active,
                })
              : linkedin(v.id, at, { ...fields, impressions: v.impressions });
          });
          const replayed = [...events, ...events.slice(0, Math.ceil(events.length / 2))];
          await store.ingest(replayed, { batchSize });
          // The last version sent of each id is the one that must count.
          const finals = new Map(
            replayed.map((e) => [`${e.type}:${e.id}`, { ...e, workspace: clean }]),
          );
          await store.ingest([...finals.values()].reverse());
          expect(await aggregates(store, ws)).toEqual(await aggregates(store, clean));
        },
      ),
      { numRuns: 25 },
    );
  }, 120_000);
}
