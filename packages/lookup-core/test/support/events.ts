/** Hand-written events for the tests: two workspaces, companies with and without contacts. */

export const KEY = 'sk_live_test_0123456789abcdefghijkl';
export const KEY_ROTATED = 'sk_live_test_rotated_0123456789abcdef';
export const OTHER_KEY = 'sk_live_other_0123456789abcdefghijk';
export const KEYS = [
  { key: KEY, workspace: 'default' },
  { key: KEY_ROTATED, workspace: 'default' },
  { key: OTHER_KEY, workspace: 'other' },
];

type Json = Record<string, unknown>;

/** A session event with sensible defaults; `at` is the start (end is 5 minutes later). */
export function session(id: string, at: string, fields: Json = {}): Json {
  const start = new Date(at);
  return {
    type: 'session',
    id,
    company: { domain: 'acme.com', name: 'Acme', industry: 'Software' },
    visitor_id: `v-${id}`,
    start_time: start.toISOString(),
    end_time: new Date(start.getTime() + 5 * 60_000).toISOString(),
    active_time: 120,
    pages_visited: ['/', '/pricing'],
    signals: ['pricing'],
    referrer: 'https://www.google.com/',
    intent: 'medium',
    city: 'Berlin',
    state: 'Berlin',
    country: 'DE',
    ...fields,
  };
}

export function linkedin(id: string, at: string, fields: Json = {}): Json {
  return {
    type: 'linkedin',
    id,
    company: { domain: 'acme.com' },
    start_time: new Date(at).toISOString(),
    impressions: 10,
    clicks: 2,
    likes: 1,
    shares: 0,
    comments: 1,
    ...fields,
  };
}

export const ann = { email: 'Ann@Acme.com', name: 'Ann Lee', title: 'CTO' };
export const bob = { email: 'bob@acme.com', name: 'Bob Stone', title: 'Engineer' };

/** The base data set most tests look up. */
export function baseEvents(): Json[] {
  return [
    session('s1', '2025-03-01T10:00:00.000Z', { contact: ann, intent: 'high' }),
    session('s2', '2025-03-02T10:00:00.000Z', { contact: ann, visitor_id: 'v-s1', referrer: '' }),
    session('s3', '2025-03-03T10:00:00.000Z', {
      contact: bob,
      intent: 'low',
      utm: { source: 'google', medium: 'cpc' },
    }),
    session('s4', '2025-03-04T09:00:00.000Z', { intent: 'very_high', signals: ['demo'] }), // anonymous
    linkedin('l1', '2025-03-05T08:00:00.000Z', { contact: ann }),
    linkedin('l2', '2025-02-20T08:00:00.000Z', { company: { domain: 'https://www.acme.com/' } }),
    // Another company in the same workspace, and one only the 'other' workspace observed.
    session('s5', '2025-03-01T12:00:00.000Z', {
      company: { domain: 'initech.io', name: 'Initech' },
      contact: { email: 'peter@initech.io' },
    }),
    session('o1', '2025-03-01T12:00:00.000Z', {
      workspace: 'other',
      company: { domain: 'globex.com', name: 'Globex', industry: 'Energy' },
      contact: { email: 'hank@globex.com', name: 'Hank' },
    }),
  ];
}
