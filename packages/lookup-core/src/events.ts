/**
 * The observed-activity event format (shared/spec/events.md): validation and the normal form the
 * store keeps. The normal form is what identity and the content hash are computed from, so
 * `https://www.Acme.com` and `acme.com`, or `Ann@X.com` and `ann@x.com`, are the same event.
 */
import { createHash } from 'node:crypto';
import * as z from 'zod';
import { isStorableText, normalizeDomain, normalizeEmail } from './normalize.js';
import type { PurchaseIntent } from './types.js';

const INTENTS = ['low', 'medium', 'high', 'very_high'] as const satisfies readonly PurchaseIntent[];

/** ISO 8601 with a date, a time and an explicit offset (`Z` or `+hh:mm`): no local-time guesses. */
const ISO_8601 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/i;

const text = (max: number) => z.string().max(max);
const optionalText = (max: number) => z.string().max(max).nullish();
const count = z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER);
const timestamp = z
  .string()
  .regex(ISO_8601, 'expected an ISO 8601 timestamp with an offset')
  .refine((s) => !Number.isNaN(Date.parse(s)), 'not a valid date');

const common = {
  id: text(200).min(1),
  workspace: text(200).min(1).optional(),
  company: z.object({
    domain: text(2048),
    name: optionalText(500),
    industry: optionalText(500),
  }),
  contact: z
    .object({ email: text(320), name: optionalText(500), title: optionalText(500) })
    .nullish(),
};

const sessionSchema = z
  .object({
    ...common,
    type: z.literal('session'),
    visitor_id: text(200).min(1),
    start_time: timestamp,
    end_time: timestamp,
    active_time: count,
    pages_visited: z.array(text(2048)).max(1000),
    signals: z.array(text(200)).max(200).optional(),
    referrer: z.string().max(2048).nullish(),
    utm: z
      .object({
        source: optionalText(500),
        medium: optionalText(500),
        campaign: optionalText(500),
      })
      .nullish(),
    intent: z.enum(INTENTS),
    city: optionalText(200),
    state: optionalText(200),
    country: optionalText(200),
  })
  .refine((e) => Date.parse(e.end_time) >= Date.parse(e.start_time), {
    message: 'end_time is before start_time',
    path: ['end_time'],
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

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  if (!issue) return 'invalid event';
  const path = issue.path.join('.');
  return path ? `${path}: ${issue.message}` : issue.message;
}

/** Validates one event (an object, or an NDJSON line) and returns its stored form or a reason. */
export function parseEvent(input: unknown): ParsedEvent {
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
  if (hasUnstorableText(value))
    return { ok: false, reason: 'text contains NUL or an unpaired surrogate' };
  const parsed = eventSchema.safeParse(value);
  if (!parsed.success) return { ok: false, reason: describeIssue(parsed.error) };
  const e = parsed.data;
  const domain = normalizeDomain(e.company.domain);
  if (domain === null) return { ok: false, reason: 'company.domain: not a domain' };
  let email: string | null = null;
  if (e.contact) {
    email = normalizeEmail(e.contact.email);
    if (email === null) return { ok: false, reason: 'contact.email: not an email address' };
  }
  const seenFrom = new Date(e.start_time).toISOString();
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
    seen_to: session ? new Date(session.end_time).toISOString() : seenFrom,
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
  const hash = createHash('sha256').update(JSON.stringify(stored)).digest('hex');
  return { ok: true, event: { ...stored, hash } };
}
