// The answer cache on its own: its bounds, what a change notice drops, and fills that raced a change.
import { describe, expect, it } from 'vitest';
import type { LookupQuery } from '../src/model/types.js';
import { AnswerCache } from '../src/store/cache.js';

const byDomain = (domain: string, workspace = 'default'): LookupQuery => ({
  workspace,
  domain,
  includeActivity: false,
});
const byEmail = (email: string, workspace = 'default'): LookupQuery => ({
  workspace,
  email,
  includeActivity: false,
});

/** Caches `text` for `query` as an answer read from `source`. */
function keep(
  cache: AnswerCache,
  query: LookupQuery,
  text: string | null,
  source: { domain?: string; emails?: string[] } = {},
) {
  cache.fill(cache.begin(query), query, text, source);
}

describe('AnswerCache', () => {
  it('never holds more bytes than its bound: the least recently used answers go first', () => {
    // Each answer below counts 2 x (key + text) + 64 bytes: with 1,000-character texts about
    // 2,100 bytes, so a 5,000-byte bound holds two of them.
    const cache = new AnswerCache({ maxBytes: 5_000 });
    const text = (n: number) => `${n}`.repeat(1_000).slice(0, 1_000);
    keep(cache, byDomain('a.com'), text(1), { domain: 'a.com' });
    keep(cache, byDomain('b.com'), text(2), { domain: 'b.com' });
    expect(cache.get(byDomain('a.com'))).toBe(text(1)); // a.com is now the most recent
    keep(cache, byDomain('c.com'), text(3), { domain: 'c.com' });
    expect(cache.size.entries).toBe(2);
    expect(cache.size.bytes).toBeLessThanOrEqual(5_000);
    expect(cache.get(byDomain('b.com'))).toBeUndefined();
    expect(cache.get(byDomain('a.com'))).toBe(text(1));
    expect(cache.get(byDomain('c.com'))).toBe(text(3));
  });

  it('keeps nothing larger than its whole bound, and nothing at all when a bound is 0', () => {
    const small = new AnswerCache({ maxBytes: 1_000 });
    keep(small, byDomain('a.com'), 'x'.repeat(1_000), { domain: 'a.com' });
    expect(small.size).toEqual({ entries: 0, bytes: 0 });
    for (const off of [new AnswerCache({ maxBytes: 0 }), new AnswerCache({ maxEntries: 0 })]) {
      expect(off.enabled).toBe(false);
      keep(off, byDomain('a.com'), '{}', { domain: 'a.com' });
      expect(off.get(byDomain('a.com'))).toBeUndefined();
    }
  });

  it('evicts in order of last use, whatever hits, refills and drops came in between', () => {
    const cache = new AnswerCache({ maxEntries: 4 });
    const fill = (name: string) =>
      keep(cache, byDomain(`${name}.com`), name, { domain: `${name}.com` });
    for (const name of ['a', 'b', 'c', 'd']) fill(name);
    cache.get(byDomain('b.com')); // from the middle
    cache.get(byDomain('a.com')); // the oldest
    cache.get(byDomain('a.com')); // already the newest: oldest first now c, d, b, a
    cache.apply({ workspace: 'default', domains: ['d.com'], emails: [] }); // c, b, a
    fill('e'); // c, b, a, e
    fill('a'); // refilled: c, b, e, a
    fill('f'); // c goes
    fill('g'); // b goes
    const kept = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].filter(
      (name) => cache.get(byDomain(`${name}.com`)) !== undefined,
    );
    expect(kept).toEqual(['a', 'e', 'f', 'g']);
  });

  it('holds at most maxEntries answers', () => {
    const cache = new AnswerCache({ maxEntries: 3 });
    for (let i = 0; i < 10; i++) keep(cache, byDomain(`c${i}.com`), '{}', { domain: `c${i}.com` });
    expect(cache.size.entries).toBe(3);
    expect(cache.get(byDomain('c9.com'))).toBe('{}');
    expect(cache.get(byDomain('c6.com'))).toBeUndefined();
  });

  it("never answers one workspace's lookup with another's", () => {
    const cache = new AnswerCache();
    keep(cache, byDomain('shared.io', 'alpha'), '"alpha"', { domain: 'shared.io' });
    expect(cache.get(byDomain('shared.io', 'beta'))).toBeUndefined();
    expect(cache.get(byEmail('sam@shared.io', 'beta'))).toBeUndefined();
    // A change in beta leaves alpha's answer kept; one in alpha drops it.
    cache.apply({ workspace: 'beta', domains: ['shared.io'], emails: [] });
    expect(cache.get(byDomain('shared.io', 'alpha'))).toBe('"alpha"');
    cache.apply({ workspace: 'alpha', domains: ['shared.io'], emails: [] });
    expect(cache.get(byDomain('shared.io', 'alpha'))).toBeUndefined();
  });

  it('a change drops exactly the answers read from what it names', () => {
    const cache = new AnswerCache();
    keep(cache, byDomain('acme.com'), 'acme', { domain: 'acme.com', emails: ['ann@acme.com'] });
    keep(cache, byEmail('ann@acme.com'), 'ann', { domain: 'acme.com', emails: ['ann@acme.com'] });
    keep(cache, byEmail('bob@acme.com'), 'bob', { domain: 'acme.com', emails: ['bob@acme.com'] });
    keep(cache, byDomain('initech.io'), 'initech', { domain: 'initech.io', emails: [] });
    keep(cache, byDomain('new.io'), null); // a 404

    // A new session of an anonymous acme.com visitor: the company's aggregates change, so every
    // answer carrying them goes (the domain's and both contacts'), and nothing else.
    cache.apply({ workspace: 'default', domains: ['acme.com'], emails: [] });
    expect(cache.get(byDomain('acme.com'))).toBeUndefined();
    expect(cache.get(byEmail('ann@acme.com'))).toBeUndefined();
    expect(cache.get(byEmail('bob@acme.com'))).toBeUndefined();
    expect(cache.get(byDomain('initech.io'))).toBe('initech');
    expect(cache.get(byDomain('new.io'))).toBeNull();

    // The first event of new.io: its kept 404 goes.
    cache.apply({ workspace: 'default', domains: ['new.io'], emails: [] });
    expect(cache.get(byDomain('new.io'))).toBeUndefined();
  });

  it('a contact moving to another company drops the answer of the company that listed it', () => {
    const cache = new AnswerCache();
    keep(cache, byDomain('old.com'), 'old', { domain: 'old.com', emails: ['pat@mail.com'] });
    cache.apply({ workspace: 'default', domains: ['new.com'], emails: ['pat@mail.com'] });
    expect(cache.get(byDomain('old.com'))).toBeUndefined();
  });

  it('a whole-workspace change drops that workspace only; a reset drops everything', () => {
    const cache = new AnswerCache();
    keep(cache, byDomain('a.com', 'alpha'), 'a', { domain: 'a.com' });
    keep(cache, byDomain('b.com', 'beta'), 'b', { domain: 'b.com' });
    cache.apply({ workspace: 'alpha', all: true });
    expect(cache.get(byDomain('a.com', 'alpha'))).toBeUndefined();
    expect(cache.get(byDomain('b.com', 'beta'))).toBe('b');
    cache.apply({ reset: true });
    expect(cache.get(byDomain('b.com', 'beta'))).toBeUndefined();
    expect(cache.size).toEqual({ entries: 0, bytes: 0 });
  });

  it('does not keep an answer read while a change to its workspace or a reset came in', () => {
    const cache = new AnswerCache();
    const query = byDomain('acme.com');
    const raced = cache.begin(query);
    cache.apply({ workspace: 'default', domains: ['other.com'], emails: [] });
    cache.fill(raced, query, 'read before the change', { domain: 'acme.com' });
    expect(cache.get(query)).toBeUndefined();
    const reset = cache.begin(query);
    cache.apply({ reset: true });
    cache.fill(reset, query, 'read before the reset', { domain: 'acme.com' });
    expect(cache.get(query)).toBeUndefined();
    // A change elsewhere does not stop a fill.
    const elsewhere = cache.begin(query);
    cache.apply({ workspace: 'beta', domains: ['acme.com'], emails: [] });
    cache.fill(elsewhere, query, 'current', { domain: 'acme.com' });
    expect(cache.get(query)).toBe('current');
  });
});
