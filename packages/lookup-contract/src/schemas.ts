/**
 * The wire contract of `POST /api/service/lookup`, as zod/mini schemas (small enough for the
 * client bundle). The client checks every answer with these, lookup-core derives its answer type
 * from them, and the OpenAPI document is generated from them (lookup-client's `openapi.ts`).
 *
 * Two readings of one contract:
 * - `schemas` (what the client uses by default) is forward compatible: the alpha API may add
 *   intent levels, write timestamps with any UTC offset, and send more contacts or entries than
 *   today's limits; none of that breaks a call. Unknown fields are kept by the client (it returns
 *   the JSON it checked, not zod's copy).
 * - `strictSchemas` holds the server to the published spec exactly: the four intent levels,
 *   timestamps in UTC (`Z`), at most 10 contacts and 10 site sessions. lookup-core's conformance
 *   tests use it; `new LookupClient({ strict: true })` too.
 */
import * as z from 'zod/mini';
import {
  KNOWN_INTENT,
  type OpenPurchaseIntent,
  PURCHASE_INTENTS,
  type PurchaseIntent,
} from './intents.js';
import { MAX_ENTRIES } from './limits.js';

/** ISO 8601 date and time to the second or finer: in UTC (`Z`) on the wire, any offset tolerated. */
const DATE_TIME =
  '\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d+)?';
export const UTC_TIMESTAMP = new RegExp(`^${DATE_TIME}Z$`);
const ANY_OFFSET_TIMESTAMP = new RegExp(`^${DATE_TIME}(Z|[+-]([01]\\d|2[0-3]):[0-5]\\d)$`);

/**
 * Strings checked against a pattern. A refinement rather than `z.regex()` or `z.iso.datetime()`:
 * the same check at a fraction of their bundle weight. The issue it raises has code `custom` and
 * says what was expected; openapi.ts writes the pattern out, recognising these checks.
 */
/* @__NO_SIDE_EFFECTS__ */ const matching = (pattern: RegExp, expected: string) =>
  z.refine<string>((text) => pattern.test(text), expected);
export const isUtcTimestamp = matching(UTC_TIMESTAMP, 'an ISO 8601 timestamp');
const isAnyOffsetTimestamp = matching(ANY_OFFSET_TIMESTAMP, 'an ISO 8601 timestamp');
export const isKnownIntent = matching(KNOWN_INTENT, `one of ${PURCHASE_INTENTS.join(', ')}`);

/** The strict reading types intents as the four levels; the forward-compatible one, open. */
function wireSchemas<Strict extends boolean>(strict: Strict) {
  const timestamp = () => z.string().check(strict ? isUtcTimestamp : isAnyOffsetTimestamp);
  // Refinements rather than `z.int()`, `nonnegative()` and `maxLength()`: the same checks at a
  // third of their bundle weight. openapi.ts writes them out as `integer`/`minimum`/`maxItems`.
  const count = () =>
    z.number().check(z.refine((n) => Number.isInteger(n) && n >= 0, 'a whole number, 0 or more'));
  const limited = <T extends z.ZodMiniType>(item: T) =>
    strict
      ? z
          .array(item)
          .check(z.refine((list) => list.length <= MAX_ENTRIES, `at most ${MAX_ENTRIES}`))
      : z.array(item);
  // A pattern rather than `z.enum` (lighter in the bundle); the cast keeps the known levels in
  // the type, which `string` would otherwise swallow.
  const intent = (strict
    ? z.string().check(isKnownIntent)
    : z.string()) as z.ZodMiniType as z.ZodMiniType<
    Strict extends true ? PurchaseIntent : OpenPurchaseIntent
  >;

  const companySchema = z.object({
    domain: z.string(),
    name: z.nullable(z.string()),
    industry: z.nullable(z.string()),
    service_sessions: count(),
    service_visitors: count(),
    service_first_seen: timestamp(),
    service_last_seen: timestamp(),
    service_purchase_intent: intent,
  });

  const siteSessionSchema = z.object({
    active_time: count(),
    start_time: timestamp(),
    end_time: timestamp(),
    pages_visited: z.array(z.string()),
    signals: z.array(z.string()),
    referrer: z.string(),
    intent,
    city: z.nullable(z.string()),
    state: z.nullable(z.string()),
    country: z.nullable(z.string()),
  });

  const linkedInEngagementSchema = z.object({
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
  const contactSchema = z.object(contactFields);

  /** A contact of a lookup made with `includeActivity: true`: both arrays are required. */
  const contactWithActivitySchema = z.object({
    ...contactFields,
    site_activity: limited(siteSessionSchema),
    linkedin_activity: z.array(linkedInEngagementSchema),
  });

  return {
    companySchema,
    siteSessionSchema,
    linkedInEngagementSchema,
    contactSchema,
    contactWithActivitySchema,
    lookupResponseSchema: z.object({ company: companySchema, contacts: limited(contactSchema) }),
    lookupResponseWithActivitySchema: z.object({
      company: companySchema,
      contacts: limited(contactWithActivitySchema),
    }),
    /** Every error answer of the lookup: `{ "error": "..." }`. */
    errorBodySchema: z.object({ error: z.string() }),
  };
}

/**
 * The lookup's wire contract as zod schemas, in the forward-compatible reading a client checks
 * answers with by default: unknown intent levels, any UTC offset, longer lists and unknown fields
 * are accepted; a missing field or one of the wrong type is not.
 */
export const schemas = wireSchemas(false);
/**
 * The same schemas in today's spec exactly: the four intent levels, timestamps in UTC (`Z`), at
 * most {@link MAX_ENTRIES} contacts and sessions. The server's answers are held to these.
 */
export const strictSchemas = wireSchemas(true);
