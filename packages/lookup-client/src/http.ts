/**
 * The `fetch` ky calls: it hands the request to the user's `fetch` as `(url, init)`, never
 * following redirects, and reads the whole body before resolving, so ky's per-attempt timeout
 * covers the body as well as the headers (a body that stalls is timed out and retried).
 */
import type { Answer } from './errors.js';

/** The `fetch` the client calls; the global `fetch` and most polyfills fit. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface Received extends Answer {
  /** Whether `body` came from JSON (a success body that is not JSON is a contract breach). */
  readonly isJson: boolean;
}

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

export function bufferedFetch(fetchFunction: FetchFunction, onAttempt: () => void) {
  return async (input: RequestInfo | URL): Promise<Response> => {
    const request = input as Request; // ky always calls fetch with its Request
    request.signal.throwIfAborted();
    onAttempt();
    const response = await fetchFunction(request.url, {
      method: request.method,
      headers: request.headers,
      body: await request.text(),
      signal: request.signal,
      // A redirect followed with the key would hand it to wherever the redirect points.
      redirect: 'manual',
    });
    // A browser's opaque redirect (status 0) has nothing to read and cannot be rebuilt.
    if (response.type === 'opaqueredirect') return response;
    const text = await response.text();
    const { status, statusText, headers } = response;
    // `null` for an empty body: a 204 or 304 may not carry even an empty one.
    const copy = new Response(text || null, {
      status,
      statusText,
      headers,
    });
    receivedOf.set(copy, { status, headers, ...parseBody(text) });
    return copy;
  };
}

function parseBody(text: string): { body: unknown; isJson: boolean } {
  if (text === '') return { body: undefined, isJson: false };
  try {
    return { body: JSON.parse(text), isJson: true };
  } catch {
    return { body: text, isJson: false };
  }
}
