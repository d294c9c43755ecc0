/**
 * The observed-activity event format (EVENTS.md, event.schema.json): validation and the normal
 * form the store keeps. The normal form is what identity and the content hash are computed from,
 * so `https://www.Acme.com` and `acme.com`, or `Ann@X.com` and `ann@x.com`, are the same event.
 */
import { hash } from 'node:crypto';
import { PURCHASE_INTENTS as INTENTS } from '@service/lookup-contract';
import * as z from 'zod';
import { EVENT_LIMITS, fitsJsonBytes, jsonBytes } from './limits.js';
import { isStorableText, normalizeDomain, normalizeEmail } from './normalize.js';

const L = EVENT_LIMITS;

const chars = (max: number) => z.string().max(max);
const bytes = (max: number) =>
  z.string().refine((s) => fitsJsonBytes(s, max), `longer than ${max} bytes`);
const optionalBytes = (max: number) => bytes(max).nullish();
const count = z.number().int().nonnegative().max(L.counter);
/** Checked as a calendar instant by `instant` once the shape is known. */
const timestamp = z.string().max(40);

const common = {
  id: chars(L.identifier).min(1),
  workspace: chars(L.identifier).min(1).optional(),
  company: z.object({
    domain: chars(L.domainInput),
    name: optionalBytes(L.profileBytes),
    industry: optionalBytes(L.profileBytes),
  }),
  contact: z
    .object({
      email: chars(L.email),
      name: optionalBytes(L.profileBytes),
      title: optionalBytes(L.profileBytes),
    })
    .nullish(),
};

const sessionSchema = z.object({
  ...common,
  type: z.literal('session'),
  visitor_id: chars(L.identifier).min(1),
  start_time: timestamp,
  end_time: timestamp,
  active_time: count,
  pages_visited: z
    .array(bytes(L.pageBytes))
    .max(L.pages)
    .refine(
      (pages) => pages.reduce((n, p) => n + jsonBytes(p), 0) <= L.pagesTotalBytes,
      `longer than ${L.pagesTotalBytes} bytes in all`,
    ),
  signals: z.array(bytes(L.signalBytes)).max(L.signals).optional(),
  referrer: optionalBytes(L.referrerBytes),
  utm: z
    .object({
      source: optionalBytes(L.utmBytes),
      medium: optionalBytes(L.utmBytes),
      campaign: optionalBytes(L.utmBytes),
    })
    .nullish(),
  intent: z.enum(INTENTS),
  city: optionalBytes(L.geoBytes),
  state: optionalBytes(L.geoBytes),
  country: optionalBytes(L.geoBytes),
});

const linkedinSchema = z.object({
  ...common,
  type: z.literal('linkedin'),
  start_time: timestamp,
  impressions: count.optional(),
  clicks: count.optional(),
  likes: count.optional(),
  shares: count.optional(),
  comments: count.optional(),
});

const eventSchema = z.discriminatedUnion('type', [sessionSchema, linkedinSchema]);
type EventInput = z.infer<typeof eventSchema>;

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const isChars = (v: unknown, max: number, min = 0): v is string =>
  typeof v === 'string' && v.length >= min && v.length <= max;
const isBytes = (v: unknown, max: number): v is string =>
  typeof v === 'string' && fitsJsonBytes(v, max);
const isOptionalBytes = (v: unknown, max: number) => v == null || isBytes(v, max);
const isCount = (v: unknown) =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= L.counter;
const isOptionalCount = (v: unknown) => v === undefined || isCount(v);
const isTextList = (v: unknown, entries: number, max: number): v is string[] =>
  Array.isArray(v) && v.length <= entries && v.every((entry) => isBytes(entry, max));

/** `common` of the schema, checked by hand (see `plainEvent`). */
function isPlainCommon(v: Record<string, unknown>): boolean {
  const { company, contact } = v;
  return (
    isChars(v.id, L.identifier, 1) &&
    (v.workspace === undefined || isChars(v.workspace, L.identifier, 1)) &&
    isObject(company) &&
    isChars(company.domain, L.domainInput) &&
    isOptionalBytes(company.name, L.profileBytes) &&
    isOptionalBytes(company.industry, L.profileBytes) &&
    (contact == null ||
      (isObject(contact) &&
        isChars(contact.email, L.email) &&
        isOptionalBytes(contact.name, L.profileBytes) &&
        isOptionalBytes(contact.title, L.profileBytes)))
  );
}

function isPlainSession(v: Record<string, unknown>): boolean {
  const { pages_visited: pages, utm } = v;
  return (
    isChars(v.visitor_id, L.identifier, 1) &&
    isChars(v.start_time, 40) &&
    isChars(v.end_time, 40) &&
    isCount(v.active_time) &&
    isTextList(pages, L.pages, L.pageBytes) &&
    pages.reduce((n, p) => n + jsonBytes(p), 0) <= L.pagesTotalBytes &&
    (v.signals === undefined || isTextList(v.signals, L.signals, L.signalBytes)) &&
    isOptionalBytes(v.referrer, L.referrerBytes) &&
    (utm == null ||
      (isObject(utm) &&
        isOptionalBytes(utm.source, L.utmBytes) &&
        isOptionalBytes(utm.medium, L.utmBytes) &&
        isOptionalBytes(utm.campaign, L.utmBytes))) &&
    (INTENTS as readonly unknown[]).includes(v.intent) &&
    isOptionalBytes(v.city, L.geoBytes) &&
    isOptionalBytes(v.state, L.geoBytes) &&
    isOptionalBytes(v.country, L.geoBytes)
  );
}

function isPlainLinkedin(v: Record<string, unknown>): boolean {
  return (
    isChars(v.start_time, 40) &&
    isOptionalCount(v.impressions) &&
    isOptionalCount(v.clicks) &&
    isOptionalCount(v.likes) &&
    isOptionalCount(v.shares) &&
    isOptionalCount(v.comments)
  );
}

/**
 * A parsed JSON value the schema certainly accepts, taken as it is; undefined when any part is in
 * doubt, and zod then says why. For data fresh from `JSON.parse` only (no getters, no prototypes
 * of the caller's), so reading a field again gives what was checked. zod's copy of every value it
 * checks was the largest share of the validation thread's time (garbage collection included).
 * Unknown keys are left on the value: only the schema's keys are read from it afterwards.
 */
export function plainEvent(v: Record<string, unknown>): EventInput | undefined {
  if (!isPlainCommon(v)) return undefined;
  if (v.type === 'session') return isPlainSession(v) ? (v as EventInput) : undefined;
  if (v.type === 'linkedin') return isPlainLinkedin(v) ? (v as EventInput) : undefined;
  return undefined;
}

export interface ParseOptions {
  /** Latest instant accepted is now plus this, in seconds (default 86 400: one day). */
  maxFutureSkewSeconds?: number;
  /** The current time in ms since the epoch (default `Date.now()`). */
  now?: number;
}

/**
 * ISO 8601 with a date, a time and an explicit offset (`Z` or `+hh:mm`): no local-time guesses.
 * Digits past the millisecond are accepted and dropped (the store keeps milliseconds).
 */
const ISO_8601 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:Z|([+-])(\d{2}):?(\d{2}))$/i;

/** Days in `month` (1-12) of `year` (Gregorian): 31 in January, March, May, July, August, October, December. */
const daysIn = (year: number, month: number): number =>
  month === 2
    ? year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0)
      ? 29
      : 28
    : 30 + ((month + (month >> 3)) & 1);

/**
 * The instant a timestamp names, in ms, or why it names none: every field must be in its range
 * and the date must exist (2025-02-31 does not roll over into March), and the instant must lie
 * between 1970-01-01T00:00:00Z and the allowed skew past now, so no out-of-range year reaches
 * the database and no far-future date becomes a company's last activity.
 */
function instant(text: string, latest: number): number | string {
  const m = ISO_8601.exec(text);
  if (!m) return 'expected an ISO 8601 timestamp with an offset';
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  const hour = Number(m[4]);
  const minute = Number(m[5]);
  const second = Number(m[6] ?? 0);
  const millis = Number((m[7] ?? '').padEnd(3, '0').slice(0, 3));
  const offsetHours = Number(m[9] ?? 0);
  const offsetMinutes = Number(m[10] ?? 0);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59)
    return 'not a valid time of day or offset';
  if (month < 1 || month > 12 || day < 1 || day > daysIn(year, month)) return 'not a calendar date';
  // `Date.UTC` reads years 0-99 as 1900-1999; those lie before 1970 whatever their offset.
  if (year < 100) return 'before 1970-01-01T00:00:00Z';
  const offset = (m[8] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000;
  const ms = Date.UTC(year, month - 1, day, hour, minute, second, millis) - offset;
  if (ms < 0) return 'before 1970-01-01T00:00:00Z';
  if (ms > latest) return 'too far in the future';
  return ms;
}

/** The form `toISOString` writes (UTC, milliseconds), which a checked timestamp often has already. */
const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/**
 * A checked timestamp (`instant` answered `ms` for it) as ISO 8601 in UTC with milliseconds: the
 * text itself when it is already written so (making the string again was a twentieth of
 * validation's time), else the instant written anew.
 */
const isoText = (text: string, ms: number): string =>
  ISO_UTC.test(text) ? text : new Date(ms).toISOString();

/** An event as the store keeps it: normalised identity, ISO UTC times, defaults filled in. */
export interface StoredEvent {
  workspace: string;
  type: 'session' | 'linkedin';
  id: string;
  domain: string;
  company_name: string | null;
  industry: string | null;
  email: string | null;
  contact_name: string | null;
  title: string | null;
  visitor_id: string | null;
  /** start_time; for LinkedIn both bounds are its start_time. */
  seen_from: string;
  seen_to: string;
  active_time: number;
  pages: string[];
  signals: string[];
  referrer: string;
  utm: { source?: string; medium?: string; campaign?: string };
  /** Index into INTENTS; -1 for LinkedIn engagement. */
  intent: number;
  city: string | null;
  state: string | null;
  country: string | null;
  impressions: number;
  clicks: number;
  likes: number;
  shares: number;
  comments: number;
  /** SHA-256 of the normal form: equal hashes mean "same content" for idempotency. */
  hash: string;
}

export type ParsedEvent = { ok: true; event: StoredEvent } | { ok: false; reason: string };

const nonEmpty = (s: string | null | undefined): string | null => {
  const t = s?.trim();
  return t ? t : null;
};

/** Whether any string inside a JSON value is unstorable (NUL, lone surrogate). */
function hasUnstorableText(value: unknown): boolean {
  if (typeof value === 'string') return !isStorableText(value);
  if (typeof value !== 'object' || value === null) return false;
  return Object.values(value).some(hasUnstorableText);
}

/**
 * Whether an event given as `input` may hold unstorable text. A line can only if it holds a
 * `\u` escape (JSON writes NUL no other way), NUL, or an unpaired surrogate itself: one scan of
 * the line, where walking every parsed value was a twentieth of validation's time.
 */
const mayHoldUnstorableText = (input: unknown): boolean =>
  typeof input !== 'string' || /\\u|[\0\p{Cs}]/u.test(input);

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid event';
  const path = issue.path.join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/**
 * Normalised domains and emails as last computed: an events file names the same companies and
 * contacts over and over, and normalising parses a URL each time. Bounded by starting afresh.
 */
const domains = new Map<string, string | null>();
const emails = new Map<string, string | null>();
const REMEMBERED = 10_000;
function remembered(
  cache: Map<string, string | null>,
  input: string,
  normalize: (input: string) => string | null,
): string | null {
  let value = cache.get(input);
  if (value === undefined) {
    if (cache.size >= REMEMBERED) cache.clear();
    value = normalize(input);
    cache.set(input, value);
  }
  return value;
}

/** Validates one event (an object, or an NDJSON line) and returns its stored form or a reason. */
export function parseEvent(input: unknown, options: ParseOptions = {}): ParsedEvent {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch {
      return { ok: false, reason: 'malformed JSON' };
    }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { ok: false, reason: 'an event must be a JSON object' };
  }
  if (mayHoldUnstorableText(input) && hasUnstorableText(value))
    return { ok: false, reason: 'text contains NUL or an unpaired surrogate' };
  let e = typeof input === 'string' ? plainEvent(value as Record<string, unknown>) : undefined;
  if (e === undefined) {
    const parsed = eventSchema.safeParse(value);
    if (!parsed.success) return { ok: false, reason: describeIssue(parsed.error) };
    e = parsed.data;
  }
  const latest =
    (options.now ?? Date.now()) + (options.maxFutureSkewSeconds ?? L.futureSkewSeconds) * 1000;
  const start = instant(e.start_time, latest);
  if (typeof start === 'string') return { ok: false, reason: `start_time: ${start}` };
  const end = e.type === 'session' ? instant(e.end_time, latest) : start;
  if (typeof end === 'string') return { ok: false, reason: `end_time: ${end}` };
  if (end < start) return { ok: false, reason: 'end_time: end_time is before start_time' };
  const domain = remembered(domains, e.company.domain, normalizeDomain);
  if (domain === null) return { ok: false, reason: 'company.domain: not a domain' };
  let email: string | null = null;
  if (e.contact) {
    email = remembered(emails, e.contact.email, normalizeEmail);
    if (email === null) return { ok: false, reason: 'contact.email: not an email address' };
    // Normalising writes the domain in punycode, which can lengthen it.
    if (jsonBytes(email) > L.email)
      return { ok: false, reason: `contact.email: longer than ${L.email} bytes` };
  }
  const seenFrom = isoText(e.start_time, start);
  const session = e.type === 'session' ? e : null;
  const linkedin = e.type === 'linkedin' ? e : null;
  const utm: StoredEvent['utm'] = {};
  for (const k of ['source', 'medium', 'campaign'] as const) {
    const v = nonEmpty(session?.utm?.[k]);
    if (v !== null) utm[k] = v;
  }
  const stored: Omit<StoredEvent, 'hash'> = {
    workspace: e.workspace ?? 'default',
    type: e.type,
    id: e.id,
    domain,
    company_name: nonEmpty(e.company.name),
    industry: nonEmpty(e.company.industry),
    email,
    contact_name: nonEmpty(e.contact?.name),
    title: nonEmpty(e.contact?.title),
    visitor_id: session?.visitor_id ?? null,
    seen_from: seenFrom,
    seen_to: e.type === 'session' ? isoText(e.end_time, end) : seenFrom,
    active_time: session?.active_time ?? 0,
    pages: session?.pages_visited ?? [],
    signals: [...new Set(session?.signals ?? [])],
    referrer: session?.referrer ?? '',
    utm,
    intent: session ? INTENTS.indexOf(session.intent) : -1,
    city: nonEmpty(session?.city),
    state: nonEmpty(session?.state),
    country: nonEmpty(session?.country),
    impressions: linkedin?.impressions ?? 0,
    clicks: linkedin?.clicks ?? 0,
    likes: linkedin?.likes ?? 0,
    shares: linkedin?.shares ?? 0,
    comments: linkedin?.comments ?? 0,
  };
  // The hash is of the form without it; added after, so every event gains it the same way.
  const event = stored as StoredEvent;
  event.hash = hash('sha256', JSON.stringify(stored));
  return { ok: true, event };
}
