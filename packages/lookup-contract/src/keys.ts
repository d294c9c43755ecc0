/**
 * Secret keys: their one grammar, the headers that carry them, and how a request presents one.
 * The server, the client, the client's test double, the redaction patterns and the keys file all
 * read a key through this module, so no two of them can disagree on what a key is.
 *
 * A key is `sk_live_` then an RFC 6750 `b64token` (token68): letters, digits and `-._~+/`, then
 * any `=` padding, 32 to 512 characters in all (https://www.rfc-editor.org/rfc/rfc6750#section-2.1).
 * Such a key fits `Authorization: Bearer` as it is, holds no comma (which HTTP uses to join a
 * repeated header's values) and no whitespace.
 *
 * The key a request's headers present (`Authorization: Bearer`, then `x-service-secret-key`; the
 * body's `secretKey` only when no header carries one, as docs/lookup-core/http-api.md says) is
 * judged strictly: a key header that is present must carry exactly one key, or the request is
 * refused. Otherwise a header the server cannot read (`Basic ...`, `Bearer a b`, a header sent
 * twice) would quietly hand the decision to the body's key.
 */

/** Every secret key starts with this. */
export const KEY_PREFIX = 'sk_live_';
/** Characters a key holds after its prefix, as a regular expression class's body (b64token's). */
export const KEY_CHARACTER_CLASS = '\\w.~+/-';
/** Fewest characters after the prefix, padding included. */
export const MIN_KEY_TAIL = 24;
/** Longest key, prefix included. */
export const MAX_KEY_LENGTH = 512;

/** The header that carries the key for proxies that strip `Authorization`. */
export const KEY_HEADER = 'x-service-secret-key';
/** The headers a key may travel in, lower-case: `Authorization: Bearer <key>`, then `KEY_HEADER`. */
export const KEY_HEADERS: readonly string[] = ['authorization', KEY_HEADER];
/** The body field a key may travel in when no header carries one. */
export const KEY_BODY_FIELD = 'secretKey';

const KEY_TOKEN = `sk_live_[${KEY_CHARACTER_CLASS}]+=*`;
const KEY_FORMAT = new RegExp(`^${KEY_TOKEN}$`);

/** Whether a string has the shape of a live secret key; a key of any other shape is never valid. */
export function isWellFormedKey(key: string): boolean {
  return (
    key.length >= KEY_PREFIX.length + MIN_KEY_TAIL &&
    key.length <= MAX_KEY_LENGTH &&
    KEY_FORMAT.test(key)
  );
}

/**
 * A new global pattern for anything shaped like a key in text (however short), for redaction:
 * every character a key may hold is inside the match, so no part of a key survives it.
 */
export function keyLikePattern(): RegExp {
  return new RegExp(KEY_TOKEN, 'g');
}

/** A key and the workspace it reads, as the keys file and `SERVICE_SECRET_KEYS` give them. */
export interface KeySpec {
  /** The key, whole: its `=` padding is never taken for the separator. */
  readonly key: string;
  /** The workspace after the separating `=`; `'default'` when none is given. */
  readonly workspace: string;
}

/**
 * The key's own token and padding, lazily, then `=WORKSPACE` where the workspace does not begin
 * with `=`: so `KEY==` is a key ending in `==`, and `KEY==ws` the key `KEY=` for workspace `ws`.
 */
const KEY_SPEC = new RegExp(`^(sk_live_[${KEY_CHARACTER_CLASS}]+=*?)(?:\\s*=\\s*([^=\\s].*))?$`);

/**
 * `KEY` or `KEY=WORKSPACE` read into its key and workspace; `undefined` when the key is not well
 * formed (a workspace name never begins with `=`, so a key's padding is never cut off).
 */
export function parseKeySpec(spec: string): KeySpec | undefined {
  const match = KEY_SPEC.exec(spec.trim());
  const key = match?.[1];
  if (key === undefined || !isWellFormedKey(key)) return undefined;
  return { key, workspace: match?.[2]?.trim() ?? 'default' };
}

/** One header's value(s): a string (a Fetch `Headers` joins repeats with ", "), or one per line. */
export type HeaderValue = string | readonly string[] | null | undefined;
/**
 * Reads a header by its lower-case name. Transport-neutral: a Fetch handler passes
 * `(name) => headers.get(name)` and a node:http shell `(name) => req.headersDistinct[name]`.
 */
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
  const secretHeader = single(header(KEY_HEADER));
  if (authorization === null || secretHeader === null) return null;
  const secret = secretHeader?.trim();
  if (secret !== undefined && !/^\S+$/.test(secret)) return null;
  if (authorization === undefined) return secret;
  return authorization.match(BEARER)?.[1] ?? null;
}
