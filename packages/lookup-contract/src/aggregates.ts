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
  readonly utm: { readonly source?: string; readonly medium?: string; readonly campaign?: string };
}

/** LinkedIn ad engagement counted for a company or person. */
export interface LinkedInTotals {
  readonly impressions: number;
  readonly clicks: number;
  readonly likes: number;
  readonly shares: number;
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
  /** `null` when there are no sessions; see lookup-core's README "Purchase intent" for the rule. */
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
  readonly linkedin: LinkedInTotals;
}

/** A company's activity, keyed by its domain, as `@service/lookup-core`'s store aggregates it. */
export interface CompanyAggregate extends ActivityAggregate {
  readonly domain: string;
  readonly name: string | null;
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
  readonly email: string;
  readonly name: string | null;
  readonly title: string | null;
  readonly companyDomain: string;
  /** Geo-location of the latest session. */
  readonly city: string | null;
  readonly state: string | null;
  readonly country: string | null;
}

/** A company with all of its contacts, as `LookupStore.readAggregates()` yields it. */
export interface ObservedCompany {
  readonly company: CompanyAggregate;
  /** Every contact of the company, most recently seen first. */
  readonly contacts: readonly ContactAggregate[];
}
