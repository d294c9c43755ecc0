/**
 * The field catalogue: the one source of truth that drives the metadata XML, the SOQL, the value
 * mapping and the catalogue page of the docs (docs/crm-sync/catalogue.md, generated from it).
 */
import type { CrmObject } from './objects.js';

/** When a mapped field is written: on create, on update, or on both. */
export type SyncTrigger = 'CREATE' | 'UPDATE' | 'ANY';
/** Every `SyncTrigger`, for validating input. */
export const syncTriggers: readonly SyncTrigger[] = ['CREATE', 'UPDATE', 'ANY'];

/** The CRM field type and the metadata Salesforce needs to create a field of that type. */
export type FieldMetadata =
  | { readonly type: 'Text'; readonly length: number }
  | { readonly type: 'LongTextArea'; readonly length: number; readonly visibleLines: number }
  | { readonly type: 'Number'; readonly precision: number; readonly scale: number }
  | { readonly type: 'DateTime' };
/** The Salesforce type of a custom field: `Text`, `LongTextArea`, `Number` or `DateTime`. */
export type CustomFieldType = FieldMetadata['type'];

/** Values known for every subject, company or contact (from the aggregates or CRM-side facts). */
export const activitySources = [
  'creationTrigger',
  'personas',
  'signals',
  'firstSessionSource',
  'latestSessionSource',
  'timeSpentMinutes',
  'sessions',
  'highIntentSessions',
  'pageViews',
  'firstSeen',
  'lastSeen',
  'purchaseIntent',
  'linkedinImpressions',
  'linkedinClicks',
  'linkedinLikes',
  'linkedinShares',
  'linkedinComments',
  'linkedinEngagements',
] as const;
/** Values known only for a company (written to Accounts). */
export const companySources = [
  'icps',
  'visitors',
  'identifiedContacts',
  'companyName',
  'website',
] as const;
/** Values known only for a person (written to Leads and Contacts). */
export const personSources = [
  'creationSource',
  'idConfidence',
  'email',
  'firstName',
  'lastName',
  'title',
  'leadCompany',
  'city',
  'state',
  'country',
] as const;

/**
 * A value the service can write: the `source` of a catalogue field or of a custom mapping.
 * @useDeclaredType
 */
export type FieldSource =
  | (typeof activitySources)[number]
  | (typeof companySources)[number]
  | (typeof personSources)[number];

/** Every `FieldSource`: the values a mapping may write. */
export const fieldSources: readonly FieldSource[] = [
  ...activitySources,
  ...companySources,
  ...personSources,
];

/** Whether `source` has a value for records of `object` (company values go to Accounts only). */
export function sourceFitsObject(source: FieldSource, object: CrmObject): boolean {
  if ((activitySources as readonly string[]).includes(source)) return true;
  const company = (companySources as readonly string[]).includes(source);
  return object === 'Account' ? company : !company;
}

/** A custom field as data (one entry, on one or more objects). */
export interface CatalogueField {
  readonly label: string;
  readonly apiName: `${string}__c`;
  readonly type: CustomFieldType;
  readonly objects: readonly CrmObject[];
  /** What the field holds, in words (also its description in the org). */
  readonly meaning: string;
  /** The values the field may hold, when it is a closed list. */
  readonly allowedValues: readonly string[] | null;
  readonly metadata: FieldMetadata;
  readonly source: FieldSource;
  readonly trigger: SyncTrigger;
}

/** One custom field on one object: what field setup creates (61 of them). */
export interface CustomFieldSpec extends Omit<CatalogueField, 'objects'> {
  readonly object: CrmObject;
  /** `Object.Field__c`, the Metadata API full name. */
  readonly fullName: string;
}

/** A standard field the service writes or maps. */
export interface StandardField {
  readonly object: CrmObject;
  readonly label: string;
  readonly apiName: string;
  readonly type: 'Text';
  /** null: the service has no value for it (an organisation may still map one). */
  readonly source: FieldSource | null;
  readonly trigger: SyncTrigger;
}

const ALL: readonly CrmObject[] = ['Account', 'Lead', 'Contact'];
const PEOPLE: readonly CrmObject[] = ['Lead', 'Contact'];
/** The length of the catalogue's Text fields and of its LongTextArea: values are cut to fit. */
export const TEXT_LENGTH = 255;
export const LONG_TEXT_LENGTH = 32768;
const TEXT: FieldMetadata = { type: 'Text', length: TEXT_LENGTH };
const LONG_TEXT: FieldMetadata = {
  type: 'LongTextArea',
  length: LONG_TEXT_LENGTH,
  visibleLines: 5,
};
const COUNT: FieldMetadata = { type: 'Number', precision: 18, scale: 0 };
const DATE_TIME: FieldMetadata = { type: 'DateTime' };
/** The picklist values of the session source fields, as `classifyTrafficSource` gives them. */
export const trafficSources = [
  'Direct',
  'Cross Network',
  'Paid Search',
  'Paid Social',
  'Paid Shopping',
] as const;
/** How purchase intent is written to the CRM (`very_high` as `Very High`, ...). */
export const intentLabels = ['Very High', 'High', 'Medium', 'Low'] as const;

function field(
  label: string,
  apiName: `${string}__c`,
  metadata: FieldMetadata,
  objects: readonly CrmObject[],
  meaning: string,
  source: FieldSource,
  options: { allowedValues?: readonly string[]; trigger?: SyncTrigger } = {},
): CatalogueField {
  return {
    label: `Service - ${label}`,
    apiName,
    type: metadata.type,
    objects,
    meaning,
    allowedValues: options.allowedValues ?? null,
    metadata,
    source,
    trigger: options.trigger ?? 'ANY',
  };
}

/**
 * The service's custom fields, each once, with the objects it is on: the data field setup, SOQL,
 * value mapping and the docs table are built from.
 */
export const fieldCatalogue: readonly CatalogueField[] = [
  field(
    'Creation Trigger',
    'ServiceCreationTrigger__c',
    TEXT,
    ALL,
    "Motion name, or 'Manual' if not created via a motion",
    'creationTrigger',
    { trigger: 'CREATE' },
  ),
  field(
    'Matched Personas',
    'ServicePersona__c',
    TEXT,
    ALL,
    "Personas matching the company's visitors (Account) or the contact (Lead, Contact)",
    'personas',
  ),
  field(
    'Matched Signals',
    'ServiceIntents__c',
    LONG_TEXT,
    ALL,
    'List of signals shown on the website',
    'signals',
  ),
  field(
    'First Session Source',
    'ServiceFirstTouch__c',
    TEXT,
    ALL,
    'Traffic source of the first session',
    'firstSessionSource',
    { allowedValues: trafficSources },
  ),
  field(
    'Latest Session Source',
    'ServiceLatestTouch__c',
    TEXT,
    ALL,
    'Traffic source of the latest session',
    'latestSessionSource',
    { allowedValues: trafficSources },
  ),
  field(
    'Time Spent',
    'ServiceTimeSpent__c',
    COUNT,
    ALL,
    'Total time across all sessions, in minutes',
    'timeSpentMinutes',
  ),
  field('Total Sessions', 'ServiceSessions__c', COUNT, ALL, 'Total sessions', 'sessions'),
  field(
    'High Intent Sessions',
    'ServiceHighIntentSessions__c',
    COUNT,
    ALL,
    'Total High Intent sessions',
    'highIntentSessions',
  ),
  field(
    'Page Views',
    'ServicePageViews__c',
    COUNT,
    ALL,
    'Total pages viewed across sessions',
    'pageViews',
  ),
  field('First Seen', 'ServiceFirstSeen__c', DATE_TIME, ALL, 'First visit', 'firstSeen'),
  field('Last Seen', 'ServiceLastSeen__c', DATE_TIME, ALL, 'Last visit', 'lastSeen'),
  field(
    'Purchase Intent',
    'ServicePurchaseIntent__c',
    TEXT,
    ALL,
    'Purchase intent level',
    'purchaseIntent',
    { allowedValues: intentLabels },
  ),
  field(
    'Number of LinkedIn Impressions',
    'ServiceLinkedInImpressionsTotal__c',
    COUNT,
    ALL,
    'Total LinkedIn ad impressions',
    'linkedinImpressions',
  ),
  field(
    'Number of LinkedIn Clicks',
    'ServiceLinkedInClicksTotal__c',
    COUNT,
    ALL,
    'Total LinkedIn ad clicks',
    'linkedinClicks',
  ),
  field(
    'Number of LinkedIn Likes',
    'ServiceLinkedInLikesTotal__c',
    COUNT,
    ALL,
    'Total LinkedIn ad likes',
    'linkedinLikes',
  ),
  field(
    'Number of LinkedIn Shares',
    'ServiceLinkedInSharesTotal__c',
    COUNT,
    ALL,
    'Total LinkedIn ad shares',
    'linkedinShares',
  ),
  field(
    'Number of LinkedIn Comments',
    'ServiceLinkedInCommentsTotal__c',
    COUNT,
    ALL,
    'Total LinkedIn ad comments',
    'linkedinComments',
  ),
  field(
    'Total LinkedIn Engagements',
    'ServiceLinkedInEngagementsTotal__c',
    COUNT,
    ALL,
    'Total LinkedIn engagements (clicks, likes, shares and comments)',
    'linkedinEngagements',
  ),
  field(
    'Matched ICPs',
    'ServiceICP__c',
    TEXT,
    ['Account'],
    'Ideal-customer profiles matching the company',
    'icps',
  ),
  field(
    'Unique Visitors',
    'ServiceVisitors__c',
    COUNT,
    ['Account'],
    'Unique visitors from the company',
    'visitors',
  ),
  field(
    'Identified Leads',
    'ServiceLeads__c',
    COUNT,
    ['Account'],
    'Leads identified for the company',
    'identifiedContacts',
  ),
  field(
    'Creation Source',
    'ServiceCreationSource__c',
    TEXT,
    PEOPLE,
    'How the contact was identified (for example personalized link, form submission)',
    'creationSource',
    { trigger: 'CREATE' },
  ),
  field(
    'ID Confidence',
    'ServiceEnrichmentConfidence__c',
    TEXT,
    PEOPLE,
    'Confidence of the identification',
    'idConfidence',
    { allowedValues: intentLabels },
  ),
];

/** Every catalogue field on every object it lives on, in catalogue order: 61 fields. */
export const customFields: readonly CustomFieldSpec[] = fieldCatalogue.flatMap(
  ({ objects, ...entry }) =>
    objects.map((object) => ({ ...entry, object, fullName: `${object}.${entry.apiName}` })),
);

/** The custom fields that live on `object`. */
export function customFieldsOf(object: CrmObject): readonly CustomFieldSpec[] {
  return customFields.filter((f) => f.object === object);
}

function standard(
  object: CrmObject,
  label: string,
  apiName: string,
  source: FieldSource | null,
): StandardField {
  // Standard fields belong to the CRM's users once a record exists: written on create only.
  return { object, label, apiName, type: 'Text', source, trigger: 'CREATE' };
}

/**
 * The standard fields written when the service creates a record (never on update, so the CRM's
 * users own them afterwards).
 */
export const standardFields: readonly StandardField[] = [
  standard('Account', 'Company Name', 'Name', 'companyName'),
  standard('Account', 'Company Website (full URL)', 'Website', 'website'),
  standard('Lead', 'Email', 'Email', 'email'),
  standard('Lead', 'First Name', 'FirstName', 'firstName'),
  standard('Lead', 'Last Name', 'LastName', 'lastName'),
  standard('Lead', 'Company Name', 'Company', 'leadCompany'),
  standard('Lead', 'Job Title', 'Title', 'title'),
  standard('Lead', 'Website (personal)', 'Website', null),
  standard('Lead', 'Phone Number', 'MobilePhone', null),
  standard('Contact', 'Email', 'Email', 'email'),
  standard('Contact', 'First Name', 'FirstName', 'firstName'),
  standard('Contact', 'Last Name', 'LastName', 'lastName'),
  standard('Contact', 'Job Title', 'Title', 'title'),
  standard('Contact', 'City', 'MailingCity', 'city'),
  standard('Contact', 'State/Province', 'MailingState', 'state'),
  standard('Contact', 'Country', 'MailingCountry', 'country'),
  // Set by the planner from the matched or created Account, not from a subject's values.
  standard('Contact', 'CRM company ID', 'AccountId', null),
];
