/**
 * The aggregates `@service/lookup-core` keeps per company and contact, declared here with the same
 * shape (the root entry must not import lookup-core), so a value read from the store is passed as it is.
 */

export const purchaseIntents = ['low', 'medium', 'high', 'very_high'] as const;
/**
 * How likely a visitor is to buy, as the lookup rates it. A type of its own, with the same four
 * values as `@service/lookup-core`'s `PurchaseIntent` (the aggregates this entry reads) and
 * `@service/lookup-client`'s (the HTTP answer), declared here so the root entry imports neither.
 * @useDeclaredType
 */
export type PurchaseIntent = (typeof purchaseIntents)[number];

/** What a session's traffic source is classified from. */
export interface SessionSource {
  /** '' when none. */
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
  readonly sessions: number;
  /** Sum of active_time, in seconds. */
  readonly activeSeconds: number;
  readonly pageViews: number;
  /** Sessions whose intent is high or very_high. */
  readonly highIntentSessions: number;
  /** null when there are no sessions. */
  readonly purchaseIntent: PurchaseIntent | null;
  /** Distinct matched signals, sorted. */
  readonly signals: readonly string[];
  /** ISO 8601 UTC with milliseconds. */
  readonly firstSeen: string;
  readonly lastSeen: string;
  readonly firstSession: SessionSource | null;
  readonly latestSession: SessionSource | null;
  readonly linkedin: LinkedInTotals;
}

/** A company's activity, keyed by its domain, as `@service/lookup-core`'s store aggregates it. */
export interface CompanyAggregate extends ActivityAggregate {
  readonly domain: string;
  readonly name: string | null;
  readonly industry: string | null;
  /** Distinct visitor ids. */
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
  /** Of the latest session. */
  readonly city: string | null;
  readonly state: string | null;
  readonly country: string | null;
}

/** A company with all of its contacts, as `LookupStore.readAggregates()` yields it. */
export interface ObservedCompany {
  readonly company: CompanyAggregate;
  readonly contacts: readonly ContactAggregate[];
}
