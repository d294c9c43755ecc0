import { describe, expect, it } from 'vitest';
import {
  CrmSyncError,
  classifyTrafficSource,
  defineFieldMappings,
  toFieldValues,
} from '../src/index.js';
import { company, contact } from './fixtures.js';

const acme = company('acme.com');
const jane = contact('jane@acme.com');

describe('toFieldValues', () => {
  it('maps a company to its Account fields on update', () => {
    const values = toFieldValues(
      { kind: 'company', company: acme, facts: { icps: ['Mid-market SaaS'], personas: [] } },
      { object: 'Account', operation: 'update' },
    );
    expect(values).toEqual({
      ServicePersona__c: null,
      ServiceIntents__c: 'Pricing page\nVisited docs',
      ServiceFirstTouch__c: 'Direct',
      ServiceLatestTouch__c: 'Paid Search',
      ServiceTimeSpent__c: 13,
      ServiceSessions__c: 3,
      ServiceHighIntentSessions__c: 1,
      ServicePageViews__c: 12,
      ServiceFirstSeen__c: '2026-01-05T09:00:00.000Z',
      ServiceLastSeen__c: '2026-02-10T17:30:00.000Z',
      ServicePurchaseIntent__c: 'High',
      ServiceLinkedInImpressionsTotal__c: 40,
      ServiceLinkedInClicksTotal__c: 3,
      ServiceLinkedInLikesTotal__c: 2,
      ServiceLinkedInSharesTotal__c: 1,
      ServiceLinkedInCommentsTotal__c: 0,
      ServiceLinkedInEngagementsTotal__c: 6,
      ServiceICP__c: 'Mid-market SaaS',
      ServiceVisitors__c: 4,
      ServiceLeads__c: 2,
    });
  });

  it('writes CREATE-trigger fields only on create: creation trigger, standard fields', () => {
    const create = toFieldValues(
      { kind: 'company', company: acme, facts: { motion: 'Hot accounts' } },
      { object: 'Account', operation: 'create' },
    );
    expect(create).toMatchObject({
      ServiceCreationTrigger__c: 'Hot accounts',
      Name: 'acme.com Inc',
      Website: 'https://acme.com',
    });
    const manual = toFieldValues(
      { kind: 'company', company: acme },
      { object: 'Account', operation: 'create' },
    );
    expect(manual.ServiceCreationTrigger__c).toBe('Manual');
  });

  it('maps a person to Lead fields on create, with the standard fields', () => {
    const values = toFieldValues(
      {
        kind: 'contact',
        contact: jane,
        company: acme,
        facts: { creationSource: 'Form submission', idConfidence: 'very_high' },
      },
      { object: 'Lead', operation: 'create' },
    );
    expect(values).toMatchObject({
      Email: 'jane@acme.com',
      FirstName: 'Jane Q',
      LastName: 'Doe',
      Company: 'acme.com Inc',
      Title: 'CTO',
      ServiceCreationTrigger__c: 'Manual',
      ServiceCreationSource__c: 'Form submission',
      ServiceEnrichmentConfidence__c: 'Very High',
    });
    expect(values).not.toHaveProperty('ServiceVisitors__c');
    expect(values).not.toHaveProperty('MailingCity');
    expect(values).not.toHaveProperty('ServicePersona__c'); // no facts given: unknown, left out
  });

  it('writes Contact mailing address on create, never on update', () => {
    const subject = { kind: 'contact' as const, contact: jane };
    expect(toFieldValues(subject, { object: 'Contact', operation: 'create' })).toMatchObject({
      MailingCity: 'Leeds',
      MailingCountry: 'GB',
      LastName: 'Doe',
    });
    const update = toFieldValues(subject, { object: 'Contact', operation: 'update' });
    expect(update).not.toHaveProperty('MailingCity');
    expect(update).not.toHaveProperty('Email');
    expect(update).not.toHaveProperty('ServiceCreationTrigger__c');
    expect(update).not.toHaveProperty('MailingState'); // null in the aggregate: unknown
  });

  it('leaves out what is unknown instead of blanking it', () => {
    const quiet = contact('x@acme.com', {
      purchaseIntent: null,
      firstSession: null,
      latestSession: null,
      name: null,
    });
    const values = toFieldValues(
      { kind: 'contact', contact: quiet },
      { object: 'Lead', operation: 'create' },
    );
    expect(values).not.toHaveProperty('ServicePurchaseIntent__c');
    expect(values).not.toHaveProperty('ServiceFirstTouch__c');
    expect(values).not.toHaveProperty('FirstName');
    expect(values.LastName).toBe('x'); // Salesforce requires one: the email's local part
  });

  it('honours mapping triggers', () => {
    const mappings = defineFieldMappings([
      { object: 'Lead', apiName: 'Visits__c', source: 'sessions', trigger: 'UPDATE' },
      { object: 'Lead', apiName: 'First_Visit__c', source: 'firstSeen', trigger: 'CREATE' },
      { object: 'Contact', apiName: 'Visits__c', source: 'sessions', trigger: 'ANY' },
    ]);
    const subject = { kind: 'contact' as const, contact: jane };
    const update = toFieldValues(subject, { object: 'Lead', operation: 'update', mappings });
    expect(update).toMatchObject({ Visits__c: 3 });
    expect(update).not.toHaveProperty('First_Visit__c');
    const create = toFieldValues(subject, { object: 'Lead', operation: 'create', mappings });
    expect(create).toMatchObject({ First_Visit__c: '2026-01-05T09:00:00.000Z' });
    expect(create).not.toHaveProperty('Visits__c');
  });

  it('formats DateTimes for the CRM and truncates long text to the field length', () => {
    const odd = contact('a@acme.com', {
      firstSeen: '2026-01-05T10:00:00+01:00',
      title: 't'.repeat(300),
    });
    const values = toFieldValues(
      { kind: 'contact', contact: odd, facts: { personas: ['p'.repeat(300)] } },
      { object: 'Contact', operation: 'create' },
    );
    expect(values.ServiceFirstSeen__c).toBe('2026-01-05T09:00:00.000Z');
    expect(Array.from(values.ServicePersona__c as string)).toHaveLength(255);
    expect(Array.from(values.Title as string)).toHaveLength(128);
  });

  it('rejects a company for a Lead and a person for an Account', () => {
    expect(() =>
      toFieldValues({ kind: 'company', company: acme }, { object: 'Lead', operation: 'update' }),
    ).toThrow(CrmSyncError);
    expect(() =>
      toFieldValues({ kind: 'contact', contact: jane }, { object: 'Account', operation: 'update' }),
    ).toThrow(/not to Account records/);
  });

  it('rejects bad aggregates with a clear error', () => {
    const bad = company('acme.com', { sessions: -1 });
    expect(() =>
      toFieldValues({ kind: 'company', company: bad }, { object: 'Account', operation: 'update' }),
    ).toThrow('sessions is not valid: -1');
    const late = company('acme.com', { lastSeen: 'yesterday' });
    expect(() =>
      toFieldValues({ kind: 'company', company: late }, { object: 'Account', operation: 'update' }),
    ).toThrow(expect.objectContaining({ code: 'invalid_aggregate' }));
  });
});

describe('classifyTrafficSource', () => {
  it.each([
    ['', {}, 'Direct'],
    ['https://www.google.com/', { source: 'google', medium: 'cpc' }, 'Paid Search'],
    ['', { source: 'bing', medium: 'ppc' }, 'Paid Search'],
    ['', { source: 'linkedin', medium: 'cpc' }, 'Paid Social'],
    ['', { source: 'facebook', medium: 'paid_social' }, 'Paid Social'],
    ['', { source: 'google', medium: 'cpc', campaign: 'shopping-q1' }, 'Paid Shopping'],
    ['', { source: 'google', medium: 'cross-network' }, 'Cross Network'],
    ['', { source: 'google', medium: 'cpc', campaign: 'pmax_brand' }, 'Cross Network'],
    ['https://news.ycombinator.com/', {}, null],
    ['', { source: 'newsletter', medium: 'email' }, null],
  ])('%s %j -> %s', (referrer, utm, expected) => {
    expect(classifyTrafficSource({ referrer, utm })).toBe(expected);
  });
});
