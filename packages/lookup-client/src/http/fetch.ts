/**
 * The `fetch` ky calls: it hands ky's request to the user's `fetch` as `(url, init)`, never
 * following redirects, and reads the whole body before resolving, so ky's per-attempt timeout
 * covers the body as well as the headers (a body that stalls is timed out and retried). The body
 * is read a chunk at a time up to a byte limit, and JSON is parsed only when it nests no deeper
 * than anything downstream (redaction, zod, a caller's logger) can walk.
 */
import { type Answer, ResponseTooLargeError } from '../errors.js';
import type { Redact } from '../redact.js';

/** The `fetch` the client calls; the global `fetch` and most polyfills fit. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface Received extends Answer {
  /** Whether `body` came from JSON (a success body that is not JSON is a contract breach). */
  readonly isJson: boolean;
  /** Blanks out the key the request carried, for the errors made of this answer. */
  readonly redact?: Redact | undefined;
}

/** Far deeper than the lookup's answers (6), far shallower than a call stack overflows at. */
const MAX_DEPTH = 64;

const receivedOf = new WeakMap<Response, Received>();

/** The answer as read by `bufferedFetch`: status, headers and the parsed body. */
export function received(response: Response): Received {
  return (
    receivedOf.get(response) ?? {
      status: response.status,
      headers: response.headers,
      body: undefined,
      isJson: false,
    }
  );
}

/** What `bufferedFetch` sends with and reads by. */
export interface Reading {
  /** The user's `fetch`. */
  readonly fetch: FetchFunction;
  /** The request's body, as ky was given it: sent as it is, without reading ky's copy back. */
  readonly body: string;
  /** Called at the start of every attempt. */
  readonly onAttempt: () => void;
  /** Bytes of an answer's body read at most. */
  readonly maxBytes: number;
  /** Blanks out the key in errors made of an answer. */
  readonly redact: Redact;
}

/** The user's `fetch` as ky's: each call counts an attempt and resolves to a read answer. */
export function bufferedFetch({ fetch, body, onAttempt, maxBytes, redact }: Reading) {
  return async (input: RequestInfo | URL): Promise<Response> => {
    const request = input as Request; // ky always calls fetch with its Request
    request.signal.throwIfAborted();
    onAttempt();
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body,
      signal: request.signal,
      // A redirect followed with the key would hand it to wherever the redirect points.
      redirect: 'manual',
    });
    // A browser's opaque redirect (status 0) has nothing to read and cannot be rebuilt.
    if (response.type === 'opaqueredirect') return response;
    const { status, statusText, headers } = response;
    const text = await readText(response, maxBytes, { status, headers, body: undefined, redact });
    // `null` for an empty body: a 204 or 304 may not carry even an empty one.
    const copy = new Response(text || null, {
      status,
      statusText,
      headers,
    });
    receivedOf.set(copy, { status, headers, redact, ...parseBody(text) });
    return copy;
  };
}

/** The body as text; past `maxBytes` the stream is cancelled, which closes the connection. */
async function readText(
  response: Response,
  maxBytes: number,
  answer: Answer & Pick<Received, 'redact'>,
): Promise<string> {
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let size = 0;
  while (reader) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      reader.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(answer, maxBytes);
    }
    text += decoder.decode(value, { stream: true });
  }
  return text + decoder.decode();
}

function parseBody(text: string): { body: unknown; isJson: boolean } {
  try {
    if (text && nestsWithin(text)) return { body: JSON.parse(text), isJson: true };
  } catch {}
  return { body: text || undefined, isJson: false };
}

/** Whether JSON text nests arrays and objects at most MAX_DEPTH deep (brackets in strings aside). */
function nestsWithin(text: string): boolean {
  let depth = 0;
  // Escapes first, then strings: neither pattern can backtrack.
  for (const c of text.replace(/\\./g, '').replace(/"[^"]*"|[^[\]{}]/g, '')) {
    depth += '[{'.includes(c) ? 1 : -1;
    if (depth > MAX_DEPTH) return false;
  }
  return true;
}
