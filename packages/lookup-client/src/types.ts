/**
 * The public answer types, inferred from the forward-compatible schemas: exact (no index
 * signature, so a misspelt field does not compile), with one name per type.
 */
import type * as z from 'zod/mini';
import type { schemas } from './schemas.js';

/** The company a lookup found: its domain, name, and what the service observed of it. */
export type Company = z.infer<typeof schemas.companySchema>;
/** One visit to your site by a contact, in `site_activity`, most recent first. */
export type SiteSession = z.infer<typeof schemas.siteSessionSchema>;
/** A contact's LinkedIn engagement from `start_time` (impressions, clicks...), in `linkedin_activity`. */
export type LinkedInEngagement = z.infer<typeof schemas.linkedInEngagementSchema>;
/** A contact of a lookup made without `includeActivity`: it has no activity fields. */
export type Contact = z.infer<typeof schemas.contactSchema>;
/** A contact of a lookup made with `includeActivity: true`. */
export type ContactWithActivity = z.infer<typeof schemas.contactWithActivitySchema>;
/** The answer of a lookup made without `includeActivity`. */
export type LookupResponse = z.infer<typeof schemas.lookupResponseSchema>;
/** The answer of a lookup made with `includeActivity: true`. */
export type LookupResponseWithActivity = z.infer<typeof schemas.lookupResponseWithActivitySchema>;
/** The body of every error answer of the lookup. */
export type ErrorBody = z.infer<typeof schemas.errorBodySchema>;
