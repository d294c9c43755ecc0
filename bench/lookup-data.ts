// The data of lookup.bench.ts: sessions spread over companies and contacts, the lookups asked (a
// hot set of 200 distinct ones and a wide set of up to 10,000), and the sessions ingested beside.

export const BENCH_KEY = 'sk_live_bench_0123456789abcdefghijklmn';
const CONTACTS_PER_COMPANY = 20;

/** 2,000 companies from 100,000 sessions up (fewer for the small sizes used while developing). */
export const companiesFor = (total: number) =>
  Math.max(10, Math.min(2_000, Math.floor(total / 50)));

/**
 * `total` sessions, round-robin over the companies; every other round is identified, by one of
 * the company's contacts in turn.
 */
export function* sessions(total: number) {
  const companies = companiesFor(total);
  const base = Date.UTC(2025, 0, 1);
  for (let i = 0; i < total; i++) {
    const c = i % companies;
    const round = Math.floor(i / companies);
    const start = base + i * 1_000;
    yield {
      type: 'session',
      id: `s${i}`,
      company: { domain: `company${c}.com`, name: `Company ${c}`, industry: 'Software' },
      contact:
        round % 2 === 0
          ? {
              email: `person${(round >> 1) % CONTACTS_PER_COMPANY}@company${c}.com`,
              name: 'A Person',
              title: 'Engineer',
            }
          : undefined,
      visitor_id: `v${i % 50_021}`,
      start_time: new Date(start).toISOString(),
      end_time: new Date(start + 240_000).toISOString(),
      active_time: 180,
      pages_visited: ['/', '/pricing', '/docs'],
      signals: i % 7 === 0 ? ['Pricing page'] : [],
      referrer: 'https://www.google.com/',
      intent: (['low', 'medium', 'high', 'very_high'] as const)[i % 4],
      city: 'Austin',
      state: 'Texas',
      country: 'United States',
    };
  }
}

export type Lookup =
  | { domain: string; includeActivity?: boolean }
  | { email: string; includeActivity?: boolean };

/** Every distinct lookup that finds something, interleaved so any prefix spans the companies. */
function answerable(total: number): Lookup[] {
  const companies = companiesFor(total);
  const rounds = Math.ceil(total / companies);
  const persons = Math.min(CONTACTS_PER_COMPANY, Math.ceil(rounds / 2));
  const kinds: Array<(c: number) => Lookup> = [
    (c) => ({ domain: `company${c}.com` }),
    (c) => ({ domain: `company${c}.com`, includeActivity: true }),
  ];
  for (let p = 0; p < persons; p++) {
    kinds.push((c) => ({ email: `person${p}@company${c}.com`, includeActivity: p % 2 === 0 }));
  }
  const all: Lookup[] = [];
  for (const kind of kinds) for (let c = 0; c < companies; c++) all.push(kind(c));
  return all;
}

/** 200 distinct lookups, of every kind, over 50 companies (or what a small size has). */
export function hotSet(total: number): Lookup[] {
  const companies = Math.min(50, companiesFor(total));
  return answerable(total)
    .filter((l) => {
      const c = Number(('domain' in l ? l.domain : l.email).match(/company(\d+)\.com/)?.[1]);
      return c < companies;
    })
    .slice(0, 200);
}

/** Up to 10,000 distinct lookups. */
export const wideSet = (total: number): Lookup[] => answerable(total).slice(0, 10_000);

/**
 * The wide set as a user ran it (issue 42): every company by domain, then 8,000 contacts by email
 * with `includeActivity`, the contacts taken company by company so any prefix spans the companies.
 */
export function userWideSet(total: number): Lookup[] {
  const companies = companiesFor(total);
  const persons = Math.min(CONTACTS_PER_COMPANY, Math.ceil(Math.ceil(total / companies) / 2));
  const lookups: Lookup[] = Array.from({ length: companies }, (_, c) => ({
    domain: `company${c}.com`,
  }));
  const contacts = Math.min(8_000, persons * companies);
  for (let i = 0; i < contacts; i++)
    lookups.push({
      email: `person${Math.floor(i / companies)}@company${i % companies}.com`,
      includeActivity: true,
    });
  return lookups;
}

/** The companies the hot set reads, where the ingest beside the load writes. */
export const HOT_DOMAINS = Array.from({ length: 50 }, (_, c) => `company${c}.com`);

/** An hour ago: the sessions ingested beside start there, later than every generated one. */
const BESIDE_START = Date.now() - 3_600_000;

/** Batch `n` of the sessions ingested beside the load: `count` new sessions of one hot company. */
export function ingestBatch(n: number, count: number) {
  const domain = HOT_DOMAINS[n % HOT_DOMAINS.length] as string;
  const base = BESIDE_START + n * 1_000;
  const events = Array.from({ length: count }, (_, j) => ({
    type: 'session',
    id: `beside-${n}-${j}`,
    company: { domain },
    visitor_id: `beside-${n}`,
    start_time: new Date(base + j * 10).toISOString(),
    end_time: new Date(base + j * 10 + 60_000).toISOString(),
    active_time: 60,
    pages_visited: ['/'],
    signals: [],
    referrer: '',
    intent: 'high',
  }));
  const lastSeen = new Date(base + (count - 1) * 10 + 60_000).toISOString();
  return { events, domain, lastSeen };
}
