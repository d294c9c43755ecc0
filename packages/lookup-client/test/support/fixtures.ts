/** Lookup answers in the documented shape, and the key the tests send, shared by the test files. */
export const KEY = 'sk_live_test_5c3d9a1e0b7f4a2c6d8e9f01';

export const company = {
  domain: 'acme.com',
  name: 'Acme',
  industry: 'Software',
  service_sessions: 3,
  service_visitors: 2,
  service_first_seen: '2026-01-02T03:04:05.000Z',
  service_last_seen: '2026-01-03T03:04:05.000Z',
  service_purchase_intent: 'high',
};

export const contact = {
  email: 'ada@acme.com',
  name: 'Ada',
  title: null,
  service_sessions: 2,
  service_first_seen: '2026-01-02T03:04:05.000Z',
  service_last_seen: '2026-01-03T03:04:05.000Z',
};

export const session = {
  active_time: 42,
  start_time: '2026-01-03T03:00:00.000Z',
  end_time: '2026-01-03T03:04:05.000Z',
  pages_visited: ['/pricing'],
  signals: ['pricing'],
  referrer: 'google',
  intent: 'high',
  city: 'Berlin',
  state: null,
  country: 'DE',
};

export const engagement = { start_time: '2026-01-03T00:00:00.000Z', linkedin_impressions: 4 };

export const lookupBody = { company, contacts: [contact] };

export const lookupBodyWithActivity = {
  company,
  contacts: [{ ...contact, site_activity: [session], linkedin_activity: [engagement] }],
};
