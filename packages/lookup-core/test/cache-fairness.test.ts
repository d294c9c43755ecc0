// The answer cache shared by workspaces: one workspace's crawl cannot take the others' room.
import { describe, expect, it } from 'vitest';
import type { LookupQuery } from '../src/model/types.js';
import { AnswerCache } from '../src/store/cache.js';

const byDomain = (workspace: string, domain: string): LookupQuery => ({
  workspace,
  domain,
  includeActivity: false,
});

const keep = (cache: AnswerCache, query: LookupQuery, text: string | null) =>
  cache.fill(cache.begin(query), query, text, query.domain ? { domain: query.domain } : {});

const kept = (cache: AnswerCache, workspace: string, count: number) =>
  Array.from({ length: count }, (_, i) => cache.get(byDomain(workspace, `d${i}.com`))).filter(
    (text) => text !== undefined,
  ).length;

describe('AnswerCache fairness between workspaces', () => {
  it("100,000 distinct lookups of one workspace leave another's cached answers in place", () => {
    const cache = new AnswerCache({ maxEntries: 1_000 });
    for (let i = 0; i < 100; i++) keep(cache, byDomain('quiet', `d${i}.com`), `{"n":${i}}`);
    // The crawl: every lookup distinct, most of them 404s (kept as null).
    for (let i = 0; i < 100_000; i++) keep(cache, byDomain('crawler', `c${i}.example`), null);
    expect(kept(cache, 'quiet', 100)).toBe(100);
    expect(cache.size.entries).toBe(1_000);
    expect(cache.evictions).toBe(100_000 - 900);
    // The crawler still has the rest of the room, its most recent answers.
    expect(cache.get(byDomain('crawler', 'c99999.example'))).toBeNull();
    expect(cache.get(byDomain('crawler', 'c99099.example'))).toBeUndefined();
  });

  it('one workspace alone may use all the room; a newcomer takes back its share from it', () => {
    const cache = new AnswerCache({ maxEntries: 1_000 });
    for (let i = 0; i < 5_000; i++) keep(cache, byDomain('big', `d${i}.com`), '{}');
    expect(kept(cache, 'big', 5_000)).toBe(1_000);
    // Within its share (half of 1,000 for two workspaces), every answer the newcomer fills stays.
    for (let i = 0; i < 500; i++) keep(cache, byDomain('new', `d${i}.com`), '{}');
    expect(kept(cache, 'new', 500)).toBe(500);
    expect(kept(cache, 'big', 5_000)).toBe(500);
    // Past its share, the newcomer evicts its own oldest answers, not the other's.
    for (let i = 500; i < 800; i++) keep(cache, byDomain('new', `d${i}.com`), '{}');
    expect(kept(cache, 'big', 5_000)).toBe(500);
    expect(kept(cache, 'new', 800)).toBe(500);
  });

  it('shares the byte bound the same way', () => {
    // Each answer below counts about 2 x (30 + 1,000) + 64 bytes: 2,124.
    const cache = new AnswerCache({ maxBytes: 100 * 2_124 });
    const text = 'x'.repeat(1_000);
    for (let i = 0; i < 10; i++) keep(cache, byDomain('quiet', `d${i}.com`), text);
    for (let i = 0; i < 10_000; i++) keep(cache, byDomain('crawler', `c${i}.example`), text);
    expect(kept(cache, 'quiet', 10)).toBe(10);
    expect(cache.size.bytes).toBeLessThanOrEqual(100 * 2_124);
  });

  it("a change to one workspace drops all of its answers and none of the others'", () => {
    const cache = new AnswerCache({ maxEntries: 100 });
    for (let i = 0; i < 10; i++) {
      keep(cache, byDomain('a', `d${i}.com`), '{}');
      keep(cache, byDomain('b', `d${i}.com`), '{}');
    }
    cache.apply({ workspace: 'a', all: true });
    expect(kept(cache, 'a', 10)).toBe(0);
    expect(kept(cache, 'b', 10)).toBe(10);
    expect(cache.size.entries).toBe(10);
  });
});
