/**
 * What one event may carry. Everything a lookup answers is bounded here, at ingest, so the
 * largest possible answer is bounded too (README "Limits and guarantees" states and derives it).
 * Text that reaches an answer is measured in bytes of its JSON form (UTF-8, escapes as written),
 * which is exactly what it adds to an answer.
 */
import { MAX_DOMAIN_INPUT_LENGTH, MAX_EMAIL_LENGTH } from '@service/lookup-contract';

export const EVENT_LIMITS = {
  /** `id`, `workspace`, `visitor_id`, in characters. */
  identifier: 200,
  /** `company.domain` as sent, in characters (normalised it is at most 253). */
  domainInput: MAX_DOMAIN_INPUT_LENGTH,
  /** `contact.email`, as sent and as stored, in characters. */
  email: MAX_EMAIL_LENGTH,
  /** `company.name`, `company.industry`, `contact.name`, `contact.title`. */
  profileBytes: 200,
  /** Entries of `pages_visited`, bytes of one entry, bytes of all entries together. */
  pages: 100,
  pageBytes: 1024,
  pagesTotalBytes: 8192,
  /** Entries of `signals`, bytes of one signal. */
  signals: 20,
  signalBytes: 100,
  referrerBytes: 2048,
  /** Each of `utm.source`, `utm.medium`, `utm.campaign`. */
  utmBytes: 200,
  /** Each of `city`, `state`, `country`. */
  geoBytes: 100,
  /** Every counter of one event (`active_time`, LinkedIn counts): 0..2^31-1. */
  counter: 2 ** 31 - 1,
  /** How far into the future a timestamp may lie by default (clocks disagree): 1 day. */
  futureSkewSeconds: 86_400,
} as const;

/** The bytes a string adds to a JSON document, without its quotes. */
export function jsonBytes(text: string): number {
  return Buffer.byteLength(JSON.stringify(text), 'utf8') - 2;
}

/** Whether `jsonBytes(text) <= max`; a UTF-16 unit never takes more than 6 (`\u001f`). */
export function fitsJsonBytes(text: string, max: number): boolean {
  return text.length * 6 <= max || jsonBytes(text) <= max;
}
