/**
 * The checks of `new LookupClient()`'s options and of a call's query: each either gives back a
 * value the client can use or throws a `ConfigurationError` that says what to fix and never
 * repeats a secret (the key, a password in `baseUrl`, a header's value).
 */
import {
  isWellFormedKey,
  KEY_PREFIX,
  LOOKUP_PATH,
  MAX_KEY_LENGTH,
  MIN_KEY_TAIL,
} from '@service/lookup-contract';
import { ConfigurationError, type KeyTransport } from './errors.js';
import type { FetchFunction } from './http/fetch.js';

/** The key transports `'auto'` tries, in order. */
export const AUTO_ORDER: readonly KeyTransport[] = ['bearer', 'header', 'body'];
const KEY_TRANSPORTS: readonly string[] = ['auto', ...AUTO_ORDER];
/** 127.0.0.0/8, `localhost` and `[::1]`, as the URL parser writes a hostname. */
const LOOPBACK = /^(localhost|127(\.\d+){3}|\[::1\])$/;
const MAX_TIMER_MS = 2_147_483_647;

/** The `keyTransport` option, when it names one. */
export function checkedKeyTransport(
  keyTransport: KeyTransport | 'auto' | undefined,
): KeyTransport | 'auto' {
  const chosen = keyTransport ?? 'auto';
  if (!KEY_TRANSPORTS.includes(chosen)) {
    throw new ConfigurationError(`keyTransport must be one of ${KEY_TRANSPORTS.join(', ')}.`);
  }
  return chosen;
}

/** Nothing a caller puts in the query is dropped unsent: a key the wire has no place for is refused. */
export function checkQuery(query: object): void {
  for (const key in query) {
    if (!/^(email|domain|includeActivity)$/.test(key)) {
      throw new ConfigurationError(
        `A lookup query takes email, domain and includeActivity, not ${key}: options go in ` +
          "lookup()'s second argument.",
      );
    }
  }
}

/** The key as given, when the server could accept it; the message never holds the key. */
export function checkedKey(secretKey: string | undefined): string {
  if (secretKey === undefined) {
    throw new ConfigurationError(
      'secretKey is not set: pass it, or set SERVICE_SECRET_KEY in the environment.',
    );
  }
  if (!isWellFormedKey(secretKey)) {
    throw new ConfigurationError(
      `secretKey (or SERVICE_SECRET_KEY) must be a server secret key: "${KEY_PREFIX}" then ` +
        `${MIN_KEY_TAIL} to ${MAX_KEY_LENGTH - KEY_PREFIX.length} letters, digits or -._~+/, ` +
        'ending in any = padding.',
    );
  }
  return secretKey;
}

/** The lookup's absolute URL under `baseUrl`, when the key may safely be sent there. */
export function lookupUrl(baseUrl: string | URL | undefined, allowInsecureHttp: boolean): string {
  if (baseUrl === undefined) {
    throw new ConfigurationError(
      'baseUrl is not set: pass it, or set SERVICE_BASE_URL in the environment (a local server: ' +
        '`npx service-lookup serve`, see the README of @service/lookup-client).',
    );
  }
  const base = URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (base?.protocol !== 'https:' && base?.protocol !== 'http:') {
    throw new ConfigurationError('baseUrl (or SERVICE_BASE_URL) must be an absolute http(s) URL.');
  }
  // The message does not echo the URL, which holds the password.
  if (base.username || base.password) {
    throw new ConfigurationError('baseUrl must not hold credentials.');
  }
  if (base.protocol === 'http:' && !allowInsecureHttp && !LOOPBACK.test(base.hostname)) {
    throw new ConfigurationError(
      'baseUrl: http sends the key in cleartext; use https or dangerouslyAllowInsecureHttp: true.',
    );
  }
  // The base's last path segment is kept: without a trailing slash, URL resolution drops it.
  if (!base.pathname.endsWith('/')) base.pathname += '/';
  return new URL(LOOKUP_PATH.slice(1), base).href;
}

/**
 * `headers` with `extra` set over it. `set`, not an object spread: header names are
 * case-insensitive, and a spread would keep `User-Agent` beside `user-agent`, which Headers then
 * joins into one value. A name or value fetch would refuse is a ConfigurationError that does not
 * echo it (it might hold a credential).
 */
export function withHeaders(headers: Headers, extra: Record<string, string> | undefined): Headers {
  for (const [name, value] of Object.entries(extra ?? {})) {
    try {
      headers.set(name, value);
    } catch {
      throw new ConfigurationError('headers must hold valid HTTP header names and values.');
    }
  }
  return headers;
}

/** The global `fetch`, looked up per request so that interceptors installed later still apply. */
export function globalFetch(): FetchFunction {
  if (typeof globalThis.fetch !== 'function') {
    throw new ConfigurationError('No global fetch in this runtime: pass the `fetch` option.');
  }
  return (input, init) => globalThis.fetch(input, init);
}

/** A per-attempt timeout a timer can keep. */
export function checkedTimeout(timeout: number): number {
  return checked(
    timeout > 0 && timeout <= MAX_TIMER_MS,
    timeout,
    `timeout must be 1 to ${MAX_TIMER_MS} ms.`,
  );
}

/** A count of further attempts. */
export function checkedMaxRetries(maxRetries: number): number {
  return whole(maxRetries, 0, 'maxRetries');
}

/** A whole number of at least `least`, for the option `name`. */
export function whole(value: number, least: number, name: string): number {
  return checked(
    Number.isInteger(value) && value >= least,
    value,
    `${name} must be a whole number, ${least} or more.`,
  );
}

function checked(ok: boolean, value: number, message: string): number {
  if (!ok) throw new ConfigurationError(message);
  return value;
}
