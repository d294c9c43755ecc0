/**
 * Identity keys of the store. Events and lookups are normalised the same way, so
 * `https://www.Acme.com/pricing` and `acme.com` find the same company.
 */

/** Lower case, no scheme, no `www.`, no path, query, port or trailing dot. `null` when nothing is left. */
export function normalizeDomain(input: string): string | null {
  let host = input.trim().toLowerCase();
  host = host.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  host = host.replace(/^[^@/]*@/, ''); // userinfo of a URL
  host = host.split(/[/?#]/, 1)[0] ?? '';
  host = host.replace(/:\d*$/, '').replace(/\.+$/, '');
  if (host.startsWith('www.')) host = host.slice(4);
  if (host === '' || /\s/.test(host)) return null;
  return host;
}

/** Emails match case-insensitively: the stored key is trimmed and lower-cased. */
export function normalizeEmail(input: string): string | null {
  const email = input.trim().toLowerCase();
  const at = email.lastIndexOf('@');
  if (at < 1 || at === email.length - 1 || /\s/.test(email)) return null;
  return email;
}

/** PostgreSQL text cannot hold NUL or unpaired UTF-16 surrogates; such input is refused up front. */
export function isStorableText(input: string): boolean {
  return !/[\0\p{Cs}]/u.test(input);
}
