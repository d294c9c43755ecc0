/**
 * The aggregates lookup-core's store keeps per company and contact, as its `readAggregates()`
 * yields them, and as @service/crm-sync maps them to CRM fields. Read-only: they are a reading of
 * the store, not something to edit.
 */
import type { PurchaseIntent } from './intents.js';

/** What a session's traffic source is classified from. */
export interface SessionSource {
  /** Referrer URL, `''` when none. */
  readonly referrer: string;
  /** The session's UTM parameters, each absent when it was not sent. */
  readonly utm: { readonly source?: string; readonly medium?: string; readonly campaign?: string };
}

/** LinkedIn ad engagement counted for a company or person. */
export interface LinkedInTotals {
  /** Times an ad was shown. */
  readonly impressions: number;
  /** Clicks on an ad. */
  readonly clicks: number;
  /** Likes of an ad. */
  readonly likes: number;
  /** Shares of an ad. */
  readonly shares: number;
  /** Comments on an ad. */
  readonly comments: number;
}

/**
 * What the service observed of a company or a person over all their sessions: the values the custom
 * fields are filled from.
 */
export interface ActivityAggregate {
  /** Number of sessions. */
  readonly sessions: number;
  /** Sum of `active_time`, in seconds. */
  readonly activeSeconds: number;
  /** Sum of the lengths of `pages_visited`. */
  readonly pageViews: number;
  /** Sessions whose intent is `high` or `very_high`. */
  readonly highIntentSessions: number;
  /**
   * The highest intent among the 10 most recent sessions that started within 30 days of the
   * latest one; `null` when there are no sessions.
   */
  readonly purchaseIntent: PurchaseIntent | null;
  /** Distinct matched signals, sorted. */
  readonly signals: readonly string[];
  /** ISO 8601 UTC with ms: min start_time over sessions and LinkedIn engagement. */
  readonly firstSeen: string;
  /** ISO 8601 UTC with ms: max end_time of sessions, max start_time of LinkedIn engagement. */
  readonly lastSeen: string;
  /** Source of the earliest session (by start_time). */
  readonly firstSession: SessionSource | null;
  /** Source of the latest session (by start_time). */
  readonly latestSession: SessionSource | null;
  /** LinkedIn ad engagement summed over every LinkedIn event. */
  readonly linkedin: LinkedInTotals;
}

/** A company's activity, keyed by its domain, as `@service/lookup-core`'s store aggregates it. */
export interface CompanyAggregate extends ActivityAggregate {
  /** The normalised domain (see `normalizeDomain`). */
  readonly domain: string;
  /** The latest name an event carried, `null` if none did. */
  readonly name: string | null;
  /** The latest industry an event carried, `null` if none did. */
  readonly industry: string | null;
  /** Distinct `visitor_id`. */
  readonly visitors: number;
  /** Distinct contacts observed for the company. */
  readonly identifiedContacts: number;
}

/**
 * An identified person's activity, keyed by email, as `@service/lookup-core`'s store aggregates it.
 */
export interface ContactAggregate extends ActivityAggregate {
  /** The normalised email (see `normalizeEmail`). */
  readonly email: string;
  /** The latest name an event carried, `null` if none did. */
  readonly name: string | null;
  /** The latest job title an event carried, `null` if none did. */
  readonly title: string | null;
  /** The domain of the company of the person's most recent event. */
  readonly companyDomain: string;
  /** Geo-location of the latest session. */
  readonly city: string | null;
  /** State or region of the latest session. */
  readonly state: string | null;
  /** Country of the latest session. */
  readonly country: string | null;
}

/** A company with all of its contacts, as `LookupStore.readAggregates()` yields it. */
export interface ObservedCompany {
  /** The company's own aggregates. */
  readonly company: CompanyAggregate;
  /** Every contact of the company, most recently seen first. */
  readonly contacts: readonly ContactAggregate[];
}
