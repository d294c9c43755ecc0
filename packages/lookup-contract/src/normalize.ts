/**
 * Identity keys of the lookup. Events, lookups and the client's test double normalise the same
 * way, so `https://www.Acme.com/pricing` and `acme.com` find the same company, and `bücher.de` and
 * `xn--bcher-kva.de` the same one too.
 */

/**
 * An internationalised host in its one ASCII form (punycode, as DNS and `URL` write it), using
 * the web-standard URL parser so the handler stays runtime-neutral. `null` when it is no host.
 */
function asciiHost(host: string): string | null {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return null;
  }
}

/** Labels of lower-case letters, digits and hyphens, each starting with a letter, none `xn--`. */
const PLAIN_HOST = /^(?!xn--)[a-z][a-z\d-]*(?:\.(?!xn--)[a-z][a-z\d-]*)+$/;

/** The longest name DNS can carry (RFC 1035), in its written form without the trailing dot. */
const MAX_DOMAIN_LENGTH = 253;

/** `acme.com.` is the same name as `acme.com` (the root's empty label, RFC 1034 3.1). */
const withoutTrailingDots = (host: string) => host.replace(/\.+$/, '');

/**
 * The input after its scheme, starting where a special URL's authority does: `http:` and `https:`
 * are dropped (the parser reads any slashes after them as a browser does), another scheme with `//`
 * is read as http, and a bare `acme.com/x` gets the `//` a browser's address bar would add.
 */
function afterScheme(input: string): string {
  if (/^https?:/i.test(input)) return input.replace(/^https?:/i, '');
  if (/^[a-z][a-z\d+.-]*:\/\//i.test(input)) return input.replace(/^[a-z][a-z\d+.-]*:/i, '');
  return `//${input}`;
}

/**
 * The host a browser would connect to for a URL-shaped domain, read with the WHATWG URL parser:
 * `acme.com#@globex.com` is acme.com, `http://globex.com\@acme.com` is globex.com. A URL with a
 * port or userinfo names no company domain: `null`. It is parsed as both http and https, whose
 * default ports differ, so an explicit `:80` or `:443` is seen too.
 */
function urlHost(input: string): string | null {
  const rest = afterScheme(input);
  try {
    const http = new URL(`http:${rest}`);
    const https = new URL(`https:${rest}`);
    if (http.username !== '' || http.password !== '') return null;
    if (http.port !== '' || https.port !== '') return null;
    return http.hostname;
  } catch {
    return null;
  }
}

/**
 * Lower case, ASCII (punycode) form, no scheme, no `www.`, no path, query or trailing dot; the
 * host is what a browser would read from the same text. `null` when nothing is left, when the text
 * carries a port or userinfo, or when what is left is longer than a DNS name can be.
 *
 * The key the lookup stores and finds companies under: it keeps the whole host
 * (`shop.acme.co.uk` stays `shop.acme.co.uk`). `@service/crm-sync`'s `registrableDomain` is a
 * different function: it reduces a host to the domain a company registers (`acme.co.uk`).
 */
export function normalizeDomain(input: string): string | null {
  const text = input.trim();
  if (text === '' || /\s/.test(text)) return null;
  // Already a plain lower-case host (letter-led ASCII labels, no punycode): the URL parser would
  // return it as it is, so the two parses are skipped on the lookup's common path.
  const host = PLAIN_HOST.test(text) ? text : urlHost(text);
  if (host === null) return null;
  const ascii = withoutTrailingDots(host);
  if (ascii === '') return null;
  const domain = ascii.startsWith('www.') ? ascii.slice(4) : ascii;
  return domain.length > MAX_DOMAIN_LENGTH ? null : domain;
}

/**
 * Emails match case-insensitively: the stored key is trimmed and lower-cased, and its domain is
 * written in the same ASCII form as company domains, without a trailing dot. The domain must be a
 * bare host: a port, path, query or fragment (`x@globex.com:80`) makes it no address.
 *
 * The key the lookup stores and finds contacts under. `@service/crm-sync`'s `emailMatchKey` is a
 * different function: the looser form it matches CRM records with (it checks no port or path).
 */
export function normalizeEmail(input: string): string | null {
  const email = input.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1 || /\s/.test(email)) return null;
  const written = email.slice(at + 1);
  if (/[/\\?#:[\]]/.test(written)) return null;
  // A plain host is what the URL parser would return: the parse is skipped on the common path.
  const host = PLAIN_HOST.test(written) ? written : asciiHost(written);
  const domain = host === null ? '' : withoutTrailingDots(host);
  if (domain === '') return null;
  return `${email.slice(0, at + 1)}${domain}`;
}

/** PostgreSQL text cannot hold NUL or unpaired UTF-16 surrogates; such input is refused up front. */
export function isStorableText(input: string): boolean {
  return !/[\0\p{Cs}]/u.test(input);
}
