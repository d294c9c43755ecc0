/**
 * Blanks out secret keys. Keys are checked at construction to be `sk_live_` followed by RFC 6750
 * token characters, so one pattern finds any key (ours, or one a gateway echoes) in any text,
 * percent-encoded tails included, without holding the key itself.
 */

/** The characters a secret key may hold after its prefix (RFC 6750 `b64token`). */
export const KEY_CHARACTERS = /^[\w.~+/=-]+$/;
const KEY_PATTERN = /sk_live_[\w.~+/=%-]*/g;
export const REDACTED = 'sk_live_[redacted]';

export function redactText(text: string): string {
  return text.replace(KEY_PATTERN, REDACTED);
}

/** A JSON value (or text) with every key in it blanked out; the value itself is not changed. */
export function redactValue(value: unknown): unknown {
  if (typeof value === 'string') return redactText(value);
  if (value === null || typeof value !== 'object') return value;
  const text = JSON.stringify(value);
  return text.includes('sk_live_') ? JSON.parse(redactText(text)) : value;
}

/** A copy of `headers` with every key blanked out, the key headers' values entirely. */
export function redactHeaders(headers: Headers): Headers {
  const copy = new Headers();
  for (const [name, value] of headers) {
    const secret = name === 'authorization' || name === 'x-service-secret-key';
    copy.append(name, secret ? value.replace(/\S+$/, '[redacted]') : redactText(value));
  }
  return copy;
}

/** `error` itself when no key shows in it or its causes, else a plain Error with its message blanked. */
export function redactCause(error: unknown): unknown {
  if (!(error instanceof Error)) return redactValue(error);
  const shown = (e: unknown): string =>
    e instanceof Error ? `${e.message}${e.stack}${shown(e.cause)}` : String(e ?? '');
  return shown(error).includes('sk_live_') ? new Error(redactText(error.message)) : error;
}
