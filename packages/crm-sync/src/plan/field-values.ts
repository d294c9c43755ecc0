/**
 * From a subject's aggregates (plus CRM-side facts) to the field values to write, honouring
 * each field's sync trigger.
 */
import type { CompanyAggregate, ContactAggregate, PurchaseIntent } from '@service/lookup-contract';
import {
  customFieldsOf,
  type FieldSource,
  type intentLabels,
  LONG_TEXT_LENGTH,
  type SyncTrigger,
  standardFields,
  TEXT_LENGTH,
} from '../model/catalogue.js';
import { CrmSyncError } from '../model/errors.js';
import type { CrmObject, FieldValue } from '../model/objects.js';
import type { FieldMapping } from './field-mappings.js';
import { classifyTrafficSource } from './traffic-source.js';

/** Facts decided on the CRM side, not kept in the aggregates. */
export interface CrmFacts {
  /** Matched personas; absent: field not written, empty: field cleared. */
  readonly personas?: readonly string[];
  /** Matched ideal-customer profiles (companies only); absent/empty as for personas. */
  readonly icps?: readonly string[];
  /** The motion creating the record; absent or null: `'Manual'`. */
  readonly motion?: string | null;
  /** How the person was identified, e.g. 'Form submission' (people only). */
  readonly creationSource?: string;
  /** Identification confidence (people only). */
  readonly idConfidence?: PurchaseIntent;
}

/** What field values are computed for: a company (an Account) or a person (a Lead or Contact). */
export type SyncSubject =
  | { readonly kind: 'company'; readonly company: CompanyAggregate; readonly facts?: CrmFacts }
  | {
      readonly kind: 'contact';
      readonly contact: ContactAggregate;
      /** The person's company, for the Lead's `Company` on create. */
      readonly company?: CompanyAggregate | null;
      readonly facts?: CrmFacts;
    };

/**
 * Whether values are for a record being created or updated; some fields are written on one only.
 */
export type WriteOperation = 'create' | 'update';

/** Which object and operation `toFieldValues` computes values for. */
export interface FieldValueOptions {
  readonly object: CrmObject;
  readonly operation: WriteOperation;
  /** Validated property-sync mappings (`defineFieldMappings`), written after the catalogue's. */
  readonly mappings?: readonly FieldMapping[];
}

type IntentLabel = (typeof intentLabels)[number];
const INTENT_LABEL: Readonly<Record<PurchaseIntent, IntentLabel>> = {
  very_high: 'Very High',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
};

function triggerApplies(trigger: SyncTrigger, operation: WriteOperation): boolean {
  return trigger === 'ANY' || trigger === (operation === 'create' ? 'CREATE' : 'UPDATE');
}

function fail(what: string, value: unknown): never {
  throw new CrmSyncError('invalid_aggregate', `${what} is not valid: ${JSON.stringify(value)}`);
}

function count(what: string, value: number): number {
  if (!Number.isFinite(value) || value < 0) fail(what, value);
  return value;
}

/** The CRM's DateTime format: ISO 8601 UTC with milliseconds. */
function dateTime(what: string, value: string): string {
  const time = Date.parse(value);
  if (Number.isNaN(time)) fail(what, value);
  return new Date(time).toISOString();
}

function text(value: string, length = TEXT_LENGTH): string {
  const chars = Array.from(value);
  return chars.length <= length ? value : `${chars.slice(0, length - 1).join('')}…`;
}

/** A missing value is unknown, not empty: it is left out rather than written as a blank. */
function known<T>(value: T | null | undefined): T | undefined {
  return value ?? undefined;
}

function list(values: readonly string[] | undefined): string | null | undefined {
  if (values === undefined) return undefined;
  return values.length === 0 ? null : text(values.join('; '));
}

/** Splits a full name the way a CRM form would: the last word is the last name. */
function splitName(name: string | null, email: string): { first: string | null; last: string } {
  const words = (name ?? '').trim().split(/\s+/).filter(Boolean);
  const last = words.pop();
  // Salesforce requires a last name on Leads and Contacts: the email's local part stands in.
  if (last === undefined) return { first: null, last: email.split('@')[0] || email };
  return { first: words.length > 0 ? words.join(' ') : null, last };
}

function sourceValue(source: FieldSource, subject: SyncSubject): FieldValue | undefined {
  const facts = subject.facts ?? {};
  const activity = subject.kind === 'company' ? subject.company : subject.contact;
  const { linkedin } = activity;
  switch (source) {
    case 'creationTrigger':
      return text(facts.motion ?? 'Manual');
    case 'personas':
      return list(facts.personas);
    case 'signals':
      return activity.signals.length === 0
        ? null
        : text(activity.signals.join('\n'), LONG_TEXT_LENGTH);
    case 'firstSessionSource':
      return known(activity.firstSession && classifyTrafficSource(activity.firstSession));
    case 'latestSessionSource':
      return known(activity.latestSession && classifyTrafficSource(activity.latestSession));
    case 'timeSpentMinutes':
      return Math.round(count('activeSeconds', activity.activeSeconds) / 60);
    case 'sessions':
      return count('sessions', activity.sessions);
    case 'highIntentSessions':
      return count('highIntentSessions', activity.highIntentSessions);
    case 'pageViews':
      return count('pageViews', activity.pageViews);
    case 'firstSeen':
      return dateTime('firstSeen', activity.firstSeen);
    case 'lastSeen':
      return dateTime('lastSeen', activity.lastSeen);
    case 'purchaseIntent':
      return known(activity.purchaseIntent && INTENT_LABEL[activity.purchaseIntent]);
    case 'linkedinImpressions':
      return count('linkedin.impressions', linkedin.impressions);
    case 'linkedinClicks':
      return count('linkedin.clicks', linkedin.clicks);
    case 'linkedinLikes':
      return count('linkedin.likes', linkedin.likes);
    case 'linkedinShares':
      return count('linkedin.shares', linkedin.shares);
    case 'linkedinComments':
      return count('linkedin.comments', linkedin.comments);
    case 'linkedinEngagements':
      // Engagements are the interactions; impressions are views, not engagements.
      return (
        count('linkedin.clicks', linkedin.clicks) +
        count('linkedin.likes', linkedin.likes) +
        count('linkedin.shares', linkedin.shares) +
        count('linkedin.comments', linkedin.comments)
      );
    default:
      return subject.kind === 'company'
        ? companyValue(source, subject.company, facts)
        : personValue(source, subject.contact, subject.company ?? null, facts);
  }
}

function companyValue(source: FieldSource, company: CompanyAggregate, facts: CrmFacts) {
  switch (source) {
    case 'icps':
      return list(facts.icps);
    case 'visitors':
      return count('visitors', company.visitors);
    case 'identifiedContacts':
      return count('identifiedContacts', company.identifiedContacts);
    case 'companyName':
      return text(company.name ?? company.domain);
    case 'website':
      return text(`https://${company.domain}`);
    default:
      return undefined;
  }
}

function personValue(
  source: FieldSource,
  contact: ContactAggregate,
  company: CompanyAggregate | null,
  facts: CrmFacts,
): FieldValue | undefined {
  const name = () => splitName(contact.name, contact.email);
  switch (source) {
    case 'creationSource':
      return facts.creationSource === undefined ? undefined : text(facts.creationSource);
    case 'idConfidence':
      return known(facts.idConfidence && INTENT_LABEL[facts.idConfidence]);
    case 'email':
      return contact.email;
    case 'firstName':
      return known(name().first);
    case 'lastName':
      return text(name().last, 80);
    case 'title':
      return known(contact.title && text(contact.title, 128));
    case 'leadCompany':
      return text(company?.name ?? contact.companyDomain);
    case 'city':
      return known(contact.city);
    case 'state':
      return known(contact.state);
    case 'country':
      return known(contact.country);
    default:
      return undefined;
  }
}

/**
 * The field values to write to a record of `object` for `subject`: the catalogue's custom fields
 * on that object, the standard fields (on create), then `mappings`, each only when its trigger
 * applies to `operation`. A value the service does not know is left out (never blanked).
 * Throws `CrmSyncError` (`invalid_input` for a company on a Lead/Contact or a person on an Account,
 * `invalid_aggregate` for a negative count or an unreadable timestamp).
 */
export function toFieldValues(
  subject: SyncSubject,
  options: FieldValueOptions,
): Record<string, FieldValue> {
  const { object, operation, mappings = [] } = options;
  if ((subject.kind === 'company') !== (object === 'Account')) {
    throw new CrmSyncError(
      'invalid_input',
      `A ${subject.kind} is written to ${subject.kind === 'company' ? 'an Account' : 'a Lead or Contact'}, not to ${object} records`,
    );
  }
  const targets = [
    ...customFieldsOf(object),
    ...standardFields.filter((f) => f.object === object),
    ...mappings.filter((m) => m.object === object),
  ];
  const values: Record<string, FieldValue> = {};
  for (const { apiName, source, trigger } of targets) {
    if (source === null || !triggerApplies(trigger, operation)) continue;
    const value = sourceValue(source, subject);
    if (value !== undefined && !(value === null && operation === 'create')) values[apiName] = value;
  }
  return values;
}
