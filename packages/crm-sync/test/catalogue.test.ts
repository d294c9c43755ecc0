import { describe, expect, it } from 'vitest';
import { customFields, fieldCatalogue, standardFields } from '../src/index.js';

// The product's table of custom fields, transcribed by hand (published as
// docs/crm-sync/catalogue.md): label, API name, type, objects.
const specCustomFields = [
  ['Service - Creation Trigger', 'ServiceCreationTrigger__c', 'Text', 'ALC'],
  ['Service - Matched Personas', 'ServicePersona__c', 'Text', 'ALC'],
  ['Service - Matched Signals', 'ServiceIntents__c', 'LongTextArea', 'ALC'],
  ['Service - First Session Source', 'ServiceFirstTouch__c', 'Text', 'ALC'],
  ['Service - Latest Session Source', 'ServiceLatestTouch__c', 'Text', 'ALC'],
  ['Service - Time Spent', 'ServiceTimeSpent__c', 'Number', 'ALC'],
  ['Service - Total Sessions', 'ServiceSessions__c', 'Number', 'ALC'],
  ['Service - High Intent Sessions', 'ServiceHighIntentSessions__c', 'Number', 'ALC'],
  ['Service - Page Views', 'ServicePageViews__c', 'Number', 'ALC'],
  ['Service - First Seen', 'ServiceFirstSeen__c', 'DateTime', 'ALC'],
  ['Service - Last Seen', 'ServiceLastSeen__c', 'DateTime', 'ALC'],
  ['Service - Purchase Intent', 'ServicePurchaseIntent__c', 'Text', 'ALC'],
  [
    'Service - Number of LinkedIn Impressions',
    'ServiceLinkedInImpressionsTotal__c',
    'Number',
    'ALC',
  ],
  ['Service - Number of LinkedIn Clicks', 'ServiceLinkedInClicksTotal__c', 'Number', 'ALC'],
  ['Service - Number of LinkedIn Likes', 'ServiceLinkedInLikesTotal__c', 'Number', 'ALC'],
  ['Service - Number of LinkedIn Shares', 'ServiceLinkedInSharesTotal__c', 'Number', 'ALC'],
  ['Service - Number of LinkedIn Comments', 'ServiceLinkedInCommentsTotal__c', 'Number', 'ALC'],
  ['Service - Total LinkedIn Engagements', 'ServiceLinkedInEngagementsTotal__c', 'Number', 'ALC'],
  ['Service - Matched ICPs', 'ServiceICP__c', 'Text', 'A'],
  ['Service - Unique Visitors', 'ServiceVisitors__c', 'Number', 'A'],
  ['Service - Identified Leads', 'ServiceLeads__c', 'Number', 'A'],
  ['Service - Creation Source', 'ServiceCreationSource__c', 'Text', 'LC'],
  ['Service - ID Confidence', 'ServiceEnrichmentConfidence__c', 'Text', 'LC'],
] as const;
/**
 * Each field's meaning (its description in the org and in docs/crm-sync/catalogue.md), the
 * product's "allowed values / meaning" column in words; the closed value lists are checked below.
 */
const specMeanings: Record<string, string> = {
  ServiceCreationTrigger__c: "Motion name, or 'Manual' if not created via a motion",
  ServicePersona__c:
    "Personas matching the company's visitors (Account) or the contact (Lead, Contact)",
  ServiceIntents__c: 'List of signals shown on the website',
  ServiceFirstTouch__c: 'Traffic source of the first session',
  ServiceLatestTouch__c: 'Traffic source of the latest session',
  ServiceTimeSpent__c: 'Total time across all sessions, in minutes',
  ServiceSessions__c: 'Total sessions',
  ServiceHighIntentSessions__c: 'Total High Intent sessions',
  ServicePageViews__c: 'Total pages viewed across sessions',
  ServiceFirstSeen__c: 'First visit',
  ServiceLastSeen__c: 'Last visit',
  ServicePurchaseIntent__c: 'Purchase intent level',
  ServiceLinkedInImpressionsTotal__c: 'Total LinkedIn ad impressions',
  ServiceLinkedInClicksTotal__c: 'Total LinkedIn ad clicks',
  ServiceLinkedInLikesTotal__c: 'Total LinkedIn ad likes',
  ServiceLinkedInSharesTotal__c: 'Total LinkedIn ad shares',
  ServiceLinkedInCommentsTotal__c: 'Total LinkedIn ad comments',
  ServiceLinkedInEngagementsTotal__c:
    'Total LinkedIn engagements (clicks, likes, shares and comments)',
  ServiceICP__c: 'Ideal-customer profiles matching the company',
  ServiceVisitors__c: 'Unique visitors from the company',
  ServiceLeads__c: 'Leads identified for the company',
  ServiceCreationSource__c:
    'How the contact was identified (for example personalized link, form submission)',
  ServiceEnrichmentConfidence__c: 'Confidence of the identification',
};
const objectOf = { A: 'Account', L: 'Lead', C: 'Contact' } as const;
const expected = specCustomFields.flatMap(([label, apiName, type, objects]) =>
  [...objects].map((o) => ({ object: objectOf[o as keyof typeof objectOf], label, apiName, type })),
);

const specStandardFields = [
  ['Account', 'Company Name', 'Name'],
  ['Account', 'Company Website (full URL)', 'Website'],
  ['Lead', 'Email', 'Email'],
  ['Lead', 'First Name', 'FirstName'],
  ['Lead', 'Last Name', 'LastName'],
  ['Lead', 'Company Name', 'Company'],
  ['Lead', 'Job Title', 'Title'],
  ['Lead', 'Website (personal)', 'Website'],
  ['Lead', 'Phone Number', 'MobilePhone'],
  ['Contact', 'Email', 'Email'],
  ['Contact', 'First Name', 'FirstName'],
  ['Contact', 'Last Name', 'LastName'],
  ['Contact', 'Job Title', 'Title'],
  ['Contact', 'City', 'MailingCity'],
  ['Contact', 'State/Province', 'MailingState'],
  ['Contact', 'Country', 'MailingCountry'],
  ['Contact', 'CRM company ID', 'AccountId'],
] as const;

describe('fieldCatalogue', () => {
  it('has 61 custom fields across the three objects (23 definitions)', () => {
    expect(fieldCatalogue).toHaveLength(23);
    expect(customFields).toHaveLength(61);
    expect(customFields.filter((f) => f.object === 'Account')).toHaveLength(21);
    expect(customFields.filter((f) => f.object === 'Lead')).toHaveLength(20);
    expect(customFields.filter((f) => f.object === 'Contact')).toHaveLength(20);
  });

  it.each(expected)('$object $apiName appears exactly once, as "$label" ($type)', (want) => {
    const found = customFields.filter(
      (f) => f.object === want.object && f.apiName === want.apiName,
    );
    expect(found).toHaveLength(1);
    expect(found[0]).toMatchObject({
      label: want.label,
      type: want.type,
      fullName: `${want.object}.${want.apiName}`,
    });
  });

  it('has no field the spec does not list', () => {
    const keys = new Set(expected.map((f) => `${f.object}.${f.apiName}`));
    expect(customFields.filter((f) => !keys.has(f.fullName))).toEqual([]);
  });

  it.each(fieldCatalogue)('$apiName fits Salesforce limits and carries its metadata', (field) => {
    expect(field.label.length).toBeLessThanOrEqual(40);
    expect(field.apiName.length).toBeLessThanOrEqual(40);
    expect(field.meaning).toBe(specMeanings[field.apiName]);
    expect(field.metadata.type).toBe(field.type);
    if (field.metadata.type === 'Text') expect(field.metadata.length).toBe(255);
    if (field.metadata.type === 'Number')
      expect(field.metadata).toMatchObject({ precision: 18, scale: 0 });
    if (field.metadata.type === 'LongTextArea') {
      expect(field.metadata.length).toBeGreaterThanOrEqual(256);
      expect(field.metadata.visibleLines).toBeGreaterThanOrEqual(2);
    }
  });

  it('lists the closed value sets of the spec', () => {
    const values = (api: string) => fieldCatalogue.find((f) => f.apiName === api)?.allowedValues;
    const sources = ['Direct', 'Cross Network', 'Paid Search', 'Paid Social', 'Paid Shopping'];
    expect(values('ServiceFirstTouch__c')).toEqual(sources);
    expect(values('ServiceLatestTouch__c')).toEqual(sources);
    expect(values('ServicePurchaseIntent__c')).toEqual(['Very High', 'High', 'Medium', 'Low']);
    expect(values('ServiceEnrichmentConfidence__c')).toEqual([
      'Very High',
      'High',
      'Medium',
      'Low',
    ]);
  });
});

describe('standardFields', () => {
  it('are the standard fields of section 2.5, in order', () => {
    expect(standardFields.map((f) => [f.object, f.label, f.apiName])).toEqual(specStandardFields);
  });
});
