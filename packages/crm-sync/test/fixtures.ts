import type { CompanyAggregate, ContactAggregate, ObservedCompany } from '../src/index.js';

const activity = {
  sessions: 3,
  activeSeconds: 754,
  pageViews: 12,
  highIntentSessions: 1,
  purchaseIntent: 'high' as const,
  signals: ['Pricing page', 'Visited docs'],
  firstSeen: '2026-01-05T09:00:00.000Z',
  lastSeen: '2026-02-10T17:30:00.000Z',
  firstSession: { referrer: '', utm: {} },
  latestSession: { referrer: 'https://www.google.com/', utm: { source: 'google', medium: 'cpc' } },
  linkedin: { impressions: 40, clicks: 3, likes: 2, shares: 1, comments: 0 },
};

export function company(
  domain: string,
  overrides: Partial<CompanyAggregate> = {},
): CompanyAggregate {
  return {
    ...activity,
    domain,
    name: `${domain} Inc`,
    industry: 'Software',
    visitors: 4,
    identifiedContacts: 2,
    ...overrides,
  };
}

export function contact(
  email: string,
  overrides: Partial<ContactAggregate> = {},
): ContactAggregate {
  return {
    ...activity,
    email,
    name: 'Jane Q Doe',
    title: 'CTO',
    companyDomain: email.split('@')[1] ?? '',
    city: 'Leeds',
    state: null,
    country: 'GB',
    ...overrides,
  };
}

export function observed(domain: string, emails: readonly string[] = []): ObservedCompany {
  return { company: company(domain), contacts: emails.map((e) => contact(e)) };
}
