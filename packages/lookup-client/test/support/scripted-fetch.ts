/**
 * An in-process `fetch` for timing tests under fake timers: it answers from a script and records
 * when (by the faked clock) and with what each attempt was made. A step of `'hang'` never answers
 * until the attempt is aborted, as a real fetch does.
 */
import type { FetchFunction } from '../../src/index.js';

export type Step = Response | Error | 'hang';

export interface Call {
  readonly at: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export function scriptedFetch(steps: Step[]): { fetch: FetchFunction; calls: Call[] } {
  const calls: Call[] = [];
  const fetch: FetchFunction = (_input, init) => {
    calls.push({
      at: Date.now(),
      headers: new Headers(init.headers),
      body: JSON.parse(String(init.body)),
    });
    const step = steps.shift() ?? new Error('scriptedFetch: no step left');
    if (step instanceof Response) return Promise.resolve(step);
    if (step instanceof Error) return Promise.reject(step);
    return new Promise((_resolve, reject) => {
      init.signal?.addEventListener('abort', () => reject(init.signal?.reason));
    });
  };
  return { fetch, calls };
}

export function json(status: number, body: unknown, headers: Record<string, string> = {}) {
  return Response.json(body, { status, headers });
}
