// Prints the field-setup envelopes and a dry-run plan, without talking to an org.
// Run: node examples/print-plan.ts (after `pnpm --filter @service/crm-sync build`)
import {
  buildProfileFieldPermissionsRequest,
  buildUpsertCustomFieldRequests,
  customFields,
  formatPlan,
  type ObservedCompany,
  planSync,
} from '@service/crm-sync';

const sessionId = process.env.SF_ACCESS_TOKEN ?? '<access token>';
const upserts = buildUpsertCustomFieldRequests(customFields, { sessionId });
const grant = buildProfileFieldPermissionsRequest('Admin', customFields, { sessionId });
console.log(`${upserts.length} upsertMetadata calls and 1 updateMetadata call; the first:`);
console.log(upserts[0]?.body);
console.log(`Then POST ${grant.path}: ${grant.operation} on Profile ${grant.fullNames.join(', ')}`);

const activity = {
  sessions: 4,
  activeSeconds: 1260,
  pageViews: 17,
  highIntentSessions: 2,
  purchaseIntent: 'very_high' as const,
  signals: ['Pricing page'],
  firstSeen: '2026-01-05T09:00:00.000Z',
  lastSeen: '2026-02-10T17:30:00.000Z',
  firstSession: { referrer: '', utm: {} },
  latestSession: { referrer: '', utm: { source: 'linkedin', medium: 'cpc' } },
  linkedin: { impressions: 120, clicks: 4, likes: 1, shares: 0, comments: 0 },
};
const observed: ObservedCompany[] = [
  {
    company: {
      ...activity,
      domain: 'acme.com',
      name: 'Acme',
      industry: null,
      visitors: 3,
      identifiedContacts: 2,
    },
    contacts: [
      {
        ...activity,
        email: 'ada@acme.com',
        name: 'Ada Lovelace',
        title: 'CTO',
        companyDomain: 'acme.com',
        city: null,
        state: null,
        country: 'GB',
      },
      {
        ...activity,
        email: 'new@acme.com',
        name: 'New Person',
        title: null,
        companyDomain: 'acme.com',
        city: null,
        state: null,
        country: null,
      },
    ],
  },
];
const plan = planSync({
  crm: {
    accounts: [{ Id: '001000000000001AAA', Website: 'https://www.acme.com' }],
    contacts: [
      { Id: '003000000000001AAA', Email: 'Ada@Acme.com', AccountId: '001000000000001AAA' },
    ],
    leads: [],
  },
  observed,
  motions: [
    {
      name: 'Very high intent',
      conditions: { purchaseIntent: ['very_high'] },
      actions: ['createLead', 'postTimeline'],
    },
  ],
});
console.log(formatPlan(plan));
