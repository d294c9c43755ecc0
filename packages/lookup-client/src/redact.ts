/**
 * Blanks out secret keys. Keys are checked at construction against the contract's one grammar
 * (`sk_live_` then RFC 6750 token68 characters), so one pattern built from that grammar finds any
 * key (ours, or one a gateway echoes) in any text, in any case and percent-encoded tails included,
 * without holding the key itself. The client's own
 * key is also found where a server echoes it upper-cased, percent-encoded, split by whitespace or
 * in base64 (`keyRedactor`).
 */

import { KEY_CHARACTER_CLASS, KEY_HEADERS, KEY_PREFIX } from '@service/lookup-contract';

/** Turns text that may hold a key into text that does not. */
export type Redact = (text: string) => string;

/** A key's prefix in any case or percent-encoded, then its characters, padding or encodings. */
const KEY_PATTERN = new RegExp(`sk(_|%5f)live(_|%5f)[${KEY_CHARACTER_CLASS}=%]+`, 'gi');
export const REDACTED = `${KEY_PREFIX}[redacted]`;

export const redactText: Redact = (text) => text.replace(KEY_PATTERN, REDACTED);

/**
 * `redactText`, and the part of `key` after its prefix in the spellings an echo gives it: any
 * case, each character perhaps percent-encoded, whitespace anywhere between, or in base64
 * (standard or URL alphabet) at any of the three alignments the encoder may have started it at.
 * Whitespace is allowed only between characters, so the pattern cannot backtrack badly.
 */
export function keyRedactor(key: string): Redact {
  const tail = key.slice(KEY_PREFIX.length);
  // `+` and `/` may also be base64url's `-` and `_`.
  const spell = (text: string) =>
    [...text]
      .map(
        (c) =>
          `(${c.replace(/\W/, '\\$&')}|%${c.charCodeAt(0).toString(16)}${{ '+': '|-', '/': '|_' }[c] ?? ''})`,
      )
      .join('\\s*');
  // The base64 characters that encode the tail's bits alone, after 0, 1 or 2 bytes of anything.
  const base64 = [0, 1, 2].map((pad) =>
    spell(btoa('\0'.repeat(pad) + tail).slice(pad && pad + 1, ((pad + tail.length) * 4) / 3)),
  );
  const echo = new RegExp([spell(tail), ...base64].join('|'), 'gi');
  return (text) => redactText(text.replace(echo, '[redacted]'));
}

/** A copy of a JSON value (or text) with every key in its strings and names blanked out. */
export function redactValue(value: unknown, redact: Redact = redactText): unknown {
  if (typeof value === 'string') return redact(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((item) => redactValue(item, redact));
  return Object.fromEntries(
    Object.entries(value).map(([name, item]) => [redact(name), redactValue(item, redact)]),
  );
}

/** A copy of `headers` with every key blanked out, the key headers' values entirely. */
export function redactHeaders(headers: Headers, redact: Redact = redactText): Headers {
  const copy = new Headers();
  for (const [name, value] of headers) {
    const secret = KEY_HEADERS.includes(name);
    copy.append(name, secret ? value.replace(/\S+$/, '[redacted]') : redact(value));
  }
  return copy;
}

/** `error` itself when no key shows in it or its causes, else a plain Error with its message blanked. */
export function redactCause(error: unknown): unknown {
  if (!(error instanceof Error)) return redactValue(error);
  const shown = (e: unknown): string =>
    e instanceof Error ? `${e.message}${e.stack}${shown(e.cause)}` : String(e ?? '');
  const text = shown(error);
  return redactText(text) === text ? error : new Error(redactText(error.message));
}
