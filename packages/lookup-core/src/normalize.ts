/**
 * Identity keys of the store. Events and lookups are normalised the same way, so
 * `https://www.Acme.com/pricing` and `acme.com` find the same company, and `bücher.de` and
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

/** The longest name DNS can carry (RFC 1035), in its written form without the trailing dot. */
const MAX_DOMAIN_LENGTH = 253;

/**
 * Lower case, ASCII (punycode) form, no scheme, no `www.`, no path, query, port or trailing dot.
 * `null` when nothing is left, or when what is left is longer than a DNS name can be.
 */
export function normalizeDomain(input: string): string | null {
  let host = input.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  host = host.replace(/^[^@/]*@/, ''); // userinfo of a URL
  host = host.split(/[/?#]/, 1)[0] ?? '';
  host = host.replace(/:\d*$/, '').replace(/\.+$/, '');
  if (host === '' || /\s/.test(host)) return null;
  const ascii = asciiHost(host);
  if (ascii === null || ascii === '') return null;
  const domain = ascii.startsWith('www.') ? ascii.slice(4) : ascii;
  return domain.length > MAX_DOMAIN_LENGTH ? null : domain;
}

/**
 * Emails match case-insensitively: the stored key is trimmed and lower-cased, and its domain is
 * written in the same ASCII form as company domains.
 */
export function normalizeEmail(input: string): string | null {
  const email = input.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1 || /\s/.test(email)) return null;
  const domain = asciiHost(email.slice(at + 1));
  if (domain === null || domain === '') return null;
  return `${email.slice(0, at + 1)}${domain}`;
}

/** PostgreSQL text cannot hold NUL or unpaired UTF-16 surrogates; such input is refused up front. */
export function isStorableText(input: string): boolean {
  return !/[\0\p{Cs}]/u.test(input);
}
