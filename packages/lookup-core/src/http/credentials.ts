/**
 * The key a request's headers present (spec 5.1: `Authorization: Bearer`, then
 * `x-service-secret-key`; the body's `secretKey` only when no header carries one), judged strictly:
 * a key header that is present must carry exactly one key, or the request is refused. Otherwise a
 * header the server cannot read (`Basic ...`, `Bearer a b`, a header sent twice) would quietly hand
 * the decision to the body's key.
 *
 * Transport-neutral: it reads headers through a getter, so the Fetch handler passes
 * `(name) => headers.get(name)` and a node:http shell `(name) => req.headersDistinct[name]`.
 */

/** One header's value(s): a string (a Fetch `Headers` joins repeats with ", "), or one per line. */
export type HeaderValue = string | readonly string[] | null | undefined;
/** Reads a header by its lower-case name. */
export type HeaderGetter = (name: string) => HeaderValue;

/** `Bearer`, one or more spaces, one token (RFC 9110 11.4: the scheme is case-insensitive). */
const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The header's one value; `null` when it came more than once. A comma marks repeats joined into
 * one value (RFC 9110 5.3); no well-formed key holds one (see `isWellFormedKey`).
 */
function single(value: HeaderValue): string | null | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') {
    if (value.length > 1) return null;
    return single(value[0]);
  }
  return value.includes(',') ? null : value;
}

/**
 * The key presented in the headers: `undefined` when neither key header is present (the body may
 * carry one), `null` when a key header is present but unusable (answer 401), else the key.
 * Both headers are judged when present; `Authorization` wins over `x-service-secret-key`.
 */
export function presentedHeaderKey(header: HeaderGetter): string | null | undefined {
  const authorization = single(header('authorization'));
  const secretHeader = single(header('x-service-secret-key'));
  if (authorization === null || secretHeader === null) return null;
  const secret = secretHeader?.trim();
  if (secret !== undefined && !/^\S+$/.test(secret)) return null;
  if (authorization === undefined) return secret;
  return authorization.match(BEARER)?.[1] ?? null;
}
