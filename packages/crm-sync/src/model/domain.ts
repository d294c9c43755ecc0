/**
 * Company domains: the registrable domain of a URL, host or email, in one form (lower case,
 * IDNs as punycode), so `https://www.Acme.co.uk/about` and `acme.co.uk` compare equal.
 */
import { parse } from 'tldts';
import { isFreeMailDomain } from './free-mail.js';

/** What `parseDomain` found: the registrable domain, or why there is none. */
export type DomainResult =
  | { readonly ok: true; readonly domain: string; readonly freeMail: boolean }
  | {
      readonly ok: false;
      readonly reason: 'empty' | 'ip-address' | 'no-public-suffix' | 'invalid';
    };

/** Punycode form of a host, through the WHATWG URL parser every runtime has. */
function toAscii(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

/**
 * The registrable domain of `input` (a URL, a host, or an email address), or why there is none:
 * IP addresses and hosts without a known public suffix (`localhost`, `intranet`) are refused.
 */
export function parseDomain(input: string): DomainResult {
  const trimmed = input.trim();
  const at = trimmed.lastIndexOf('@');
  const candidate = at >= 0 && !trimmed.includes('/') ? trimmed.slice(at + 1) : trimmed;
  if (candidate === '') return { ok: false, reason: 'empty' };
  const parsed = parse(candidate);
  if (parsed.isIp) return { ok: false, reason: 'ip-address' };
  if (parsed.hostname === null) return { ok: false, reason: 'invalid' };
  if (parsed.domain === null || parsed.isIcann !== true)
    return { ok: false, reason: 'no-public-suffix' };
  const domain = toAscii(parsed.domain);
  if (domain === null) return { ok: false, reason: 'invalid' };
  return { ok: true, domain, freeMail: isFreeMailDomain(domain) };
}

/**
 * The registrable domain of `input`, or `null` when it has none (see `parseDomain`):
 * `https://www.shop.acme.co.uk/x` gives `acme.co.uk`. Not the same as `@service/lookup-core`'s
 * `normalizeDomain`, which keeps the whole host (`shop.acme.co.uk`) and only cleans it.
 */
export function registrableDomain(input: string): string | null {
  const result = parseDomain(input);
  return result.ok ? result.domain : null;
}

/** An email address in the one form used for matching: trimmed, lower case, domain as punycode. */
export function emailMatchKey(email: string): string | null {
  const trimmed = email.trim().toLowerCase();
  const at = trimmed.lastIndexOf('@');
  if (at <= 0 || at === trimmed.length - 1) return null;
  const host = toAscii(trimmed.slice(at + 1));
  return host === null ? null : `${trimmed.slice(0, at)}@${host}`;
}
