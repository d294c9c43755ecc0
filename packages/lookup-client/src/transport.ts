/**
 * Sends one lookup request, attempt after attempt: each attempt has its own time limit, and a
 * transient failure (an error status retry.ts names, a timeout, the network failing) is tried
 * again after the wait retry.ts gives. The caller's signal ends everything at once and is never
 * retried. The answer comes back whatever its status; only the lack of one is thrown.
 */
import { isNetworkFailure } from './network-failure.js';
import { retryDelay } from './retry.js';

/** An attempt that got no whole answer within its time limit. */
export class AttemptTimeoutError extends Error {
  override readonly name = 'AttemptTimeoutError';
}

/** Called around the attempts: before the first, before each retry, after each answer. */
export interface TransportHooks {
  beforeRequest(request: Request): Promise<void>;
  /** `failure` is the answer (an error status) or the error that ended the attempt before. */
  beforeRetry(request: Request, failure: unknown, retryCount: number): Promise<void>;
  afterResponse(request: Request, response: Response, retryCount: number): Promise<void>;
}

export interface Transport {
  /** Sends a copy of the request: the fetch resolves once the whole answer is read. */
  fetch: (request: Request, signal: AbortSignal) => Promise<Response>;
  /** Milliseconds each attempt may take. */
  timeout: number;
  /** Attempts after the first, at most. */
  retries: number;
  signal?: AbortSignal | undefined;
  hooks: TransportHooks;
}

/** The last answer, error statuses included; throws what ended the last attempt without one. */
export async function send(request: Request, transport: Transport): Promise<Response> {
  const { hooks, signal } = transport;
  await hooks.beforeRequest(request);
  for (let retryCount = 0; ; retryCount++) {
    let failure: unknown;
    try {
      failure = await attempt(request, transport);
    } catch (error) {
      failure = error;
    }
    if (failure instanceof Response) {
      // A hook's error ends the call: it is outside the failures that are retried.
      await hooks.afterResponse(request, failure, retryCount);
      if (failure.ok) return failure;
    }
    const wait =
      signal?.aborted || retryCount >= transport.retries
        ? undefined
        : waitBefore(failure, retryCount + 1);
    if (wait === undefined) {
      if (failure instanceof Response) return failure;
      throw failure;
    }
    await sleep(wait, signal);
    await hooks.beforeRetry(request, failure, retryCount + 1);
  }
}

/** The wait before retry number `retryNumber`, or `undefined` when the failure is not retried. */
function waitBefore(failure: unknown, retryNumber: number): number | undefined {
  if (failure instanceof Response) return retryDelay(failure, retryNumber);
  // A permission refused or a bug fails the same way every time: only the network's failures
  // and timeouts are worth another attempt.
  const transient = failure instanceof AttemptTimeoutError || isNetworkFailure(failure);
  return transient ? retryDelay(undefined, retryNumber) : undefined;
}

/**
 * One attempt, ended by its time limit or the caller's signal. The limit is a timer rather than
 * `AbortSignal.timeout` so that it rejects even when a `fetch` ignores its signal.
 */
async function attempt(request: Request, transport: Transport): Promise<Response> {
  const controller = new AbortController();
  const { signal } = transport;
  const attemptSignal = signal ? AbortSignal.any([signal, controller.signal]) : controller.signal;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      controller.abort();
      reject(new AttemptTimeoutError(`No answer within ${transport.timeout} ms`));
    }, transport.timeout);
  });
  try {
    return await Promise.race([transport.fetch(request.clone(), attemptSignal), timedOut]);
  } finally {
    clearTimeout(timer);
  }
}

/** Waits `ms`; the caller's signal cuts the wait short with its reason. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
