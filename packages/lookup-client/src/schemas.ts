/**
 * The wire contract of `POST /api/service/lookup`, as zod/mini schemas (small enough for the
 * client bundle). The client parses every answer with these; lookup-core's contract tests parse
 * every handler response with the same ones.
 *
 * Objects are loose: the alpha API may add fields, and unknown fields are kept, never rejected.
 */
import * as z from 'zod/mini';

/** ISO 8601 in UTC (`Z`), as the lookup writes every timestamp. */
const timestamp = () => z.iso.datetime();
const count = () => z.int().check(z.nonnegative());

export const purchaseIntentSchema = z.enum(['low', 'medium', 'high', 'very_high']);

export const companySchema = z.looseObject({
  domain: z.string(),
  name: z.nullable(z.string()),
  industry: z.nullable(z.string()),
  service_sessions: count(),
  service_visitors: count(),
  service_first_seen: timestamp(),
  service_last_seen: timestamp(),
  service_purchase_intent: purchaseIntentSchema,
});

export const siteSessionSchema = z.looseObject({
  active_time: count(),
  start_time: timestamp(),
  end_time: timestamp(),
  pages_visited: z.array(z.string()),
  signals: z.array(z.string()),
  referrer: z.string(),
  intent: purchaseIntentSchema,
  city: z.nullable(z.string()),
  state: z.nullable(z.string()),
  country: z.nullable(z.string()),
});

export const linkedInEngagementSchema = z.looseObject({
  start_time: timestamp(),
  linkedin_impressions: count(),
  // Not in the published spec; sent by lookup-core, optional for other servers.
  linkedin_clicks: z.optional(count()),
  linkedin_likes: z.optional(count()),
  linkedin_shares: z.optional(count()),
  linkedin_comments: z.optional(count()),
});

const contactFields = {
  email: z.string(),
  name: z.nullable(z.string()),
  title: z.nullable(z.string()),
  service_sessions: count(),
  service_first_seen: timestamp(),
  service_last_seen: timestamp(),
};

/** A contact of a lookup made without `includeActivity`: no activity arrays. */
export const contactSchema = z.looseObject(contactFields);

/** A contact of a lookup made with `includeActivity: true`: both arrays are required. */
export const contactWithActivitySchema = z.looseObject({
  ...contactFields,
  site_activity: z.array(siteSessionSchema).check(z.maxLength(10)),
  linkedin_activity: z.array(linkedInEngagementSchema),
});

export const lookupResponseSchema = z.looseObject({
  company: companySchema,
  contacts: z.array(contactSchema).check(z.maxLength(10)),
});

export const lookupResponseWithActivitySchema = z.looseObject({
  company: companySchema,
  contacts: z.array(contactWithActivitySchema).check(z.maxLength(10)),
});

/** Every error answer of the lookup: `{ "error": "..." }`. */
export const errorBodySchema = z.looseObject({ error: z.string() });

export type PurchaseIntent = z.infer<typeof purchaseIntentSchema>;
export type Company = z.infer<typeof companySchema>;
export type SiteSession = z.infer<typeof siteSessionSchema>;
export type LinkedInEngagement = z.infer<typeof linkedInEngagementSchema>;
export type Contact = z.infer<typeof contactSchema>;
export type ContactWithActivity = z.infer<typeof contactWithActivitySchema>;
export type LookupResponse = z.infer<typeof lookupResponseSchema>;
export type LookupResponseWithActivity = z.infer<typeof lookupResponseWithActivitySchema>;
export type ErrorBody = z.infer<typeof errorBodySchema>;
