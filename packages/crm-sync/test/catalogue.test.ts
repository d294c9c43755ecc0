import { describe, expect, it } from 'vitest';
import { customFields, fieldCatalogue, standardFields } from '../src/index.js';

// Spec section 2.5, transcribed by hand: label, API name, type, objects.
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
    expect(field.meaning.length).toBeGreaterThan(0);
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
