/**
 * One HTTP attempt with `fetch`: the per-attempt timeout covers the wait for headers and the read
 * of the body, and the caller's signal aborts it. Deciding what an outcome means is the client's.
 */
import type { Answer } from './errors.js';

/** The `fetch` the client calls; the global `fetch` and most polyfills fit. */
export type FetchFunction = (input: string, init: RequestInit) => Promise<Response>;

export interface Received extends Answer {
  /** Whether `body` came from JSON (a success body that is not JSON is a contract breach). */
  readonly isJson: boolean;
}

type Outcome =
  | { readonly kind: 'answer'; readonly answer: Received }
  | { readonly kind: 'timeout' }
  | { readonly kind: 'unreachable'; readonly cause: unknown };

interface AttemptRequest {
  readonly fetch: FetchFunction;
  readonly url: string;
  readonly headers: Headers;
  readonly body: string;
  readonly timeout: number;
  readonly signal: AbortSignal | undefined;
}

/** Runs one POST. Rejects only with the caller's abort reason; every other end is an `Outcome`. */
export async function attempt(request: AttemptRequest): Promise<Outcome> {
  const { signal } = request;
  signal?.throwIfAborted();
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onAbort, { once: true });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, request.timeout);
  try {
    const response = await request.fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      signal: controller.signal,
    });
    const text = await response.text();
    return {
      kind: 'answer',
      answer: { status: response.status, headers: response.headers, ...parseBody(text) },
    };
  } catch (error) {
    signal?.throwIfAborted();
    return timedOut ? { kind: 'timeout' } : { kind: 'unreachable', cause: error };
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener('abort', onAbort);
  }
}

function parseBody(text: string): { body: unknown; isJson: boolean } {
  if (text === '') return { body: undefined, isJson: false };
  try {
    return { body: JSON.parse(text), isJson: true };
  } catch {
    return { body: text, isJson: false };
  }
}
