/**
 * Hooks for logging and tracing. They observe a call; they cannot change its answer. What they
 * are given never holds the secret key: `request` is a copy whose key header and `secretKey`
 * body field read `[redacted]`, and errors are the client's own (redacted) errors.
 */
import { KEY_HEADERS } from '@service/lookup-contract';
import type { Hooks } from 'ky';
import type { LookupError } from './errors.js';
import { redactHeaders, redactText } from './redact.js';

/** What a `beforeRequest` hook is given. */
export interface BeforeRequestState {
  /** A redacted copy of the request. Headers a hook sets on it are sent (key headers excepted). */
  readonly request: Request;
}

/** What a `beforeRetry` hook is given. */
export interface BeforeRetryState {
  /** A redacted copy of the request being retried. */
  readonly request: Request;
  /** Why the attempt before failed. */
  readonly error: LookupError;
  /** 1 before the first retry. */
  readonly retryCount: number;
}

/** What an `afterResponse` hook is given. */
export interface AfterResponseState {
  /** A redacted copy of the request answered. */
  readonly request: Request;
  /** The answer, error statuses included; its body is readable. */
  readonly response: Response;
  /** 0 for the first attempt. */
  readonly retryCount: number;
}

/** A hook: a function given `State`, awaited; what it throws ends the call with that error. */
export type Hook<State> = (state: State) => void | Promise<void>;

/**
 * Functions that observe every call, for logging and tracing; each list is awaited in order.
 * They cannot change a request's key or an answer, and never see the key.
 *
 * @example
 * ```ts
 * const hooks: LookupHooks = {
 *   afterResponse: [({ response }) => console.info(response.status, response.headers.get('x-request-id'))],
 * };
 * ```
 */
export interface LookupHooks {
  /** Before the first attempt through each key transport tried (once per call, usually). */
  beforeRequest?: Hook<BeforeRequestState>[] | undefined;
  /** Before each retry, after the backoff wait. */
  beforeRetry?: Hook<BeforeRetryState>[] | undefined;
  /** After each answer, before it is checked. */
  afterResponse?: Hook<AfterResponseState>[] | undefined;
}

/** What a hook threw: it ends the call as it is, never taken for a connection failure. */
export const hookFailures = new WeakSet<object>();

async function run<State>(hook: Hook<State>, state: State): Promise<void> {
  try {
    await hook(state);
  } catch (error) {
    if (typeof error === 'object' && error !== null) hookFailures.add(error);
    throw error;
  }
}

/** ky hooks that call `hooks` with redacted copies; `toError` turns ky's errors into ours. */
export function kyHooks(hooks: LookupHooks, toError: (error: Error) => LookupError): Hooks {
  return {
    beforeRequest: (hooks.beforeRequest ?? []).map((hook) => async ({ request }) => {
      const copy = await redacted(request);
      await run(hook, { request: copy });
      for (const [name, value] of copy.headers) {
        if (!KEY_HEADERS.includes(name)) request.headers.set(name, value);
      }
    }),
    beforeRetry: (hooks.beforeRetry ?? []).map(
      (hook) =>
        async ({ request, error, retryCount }) =>
          run(hook, { request: await redacted(request), error: toError(error), retryCount }),
    ),
    // ky hands each hook its own copy of the answer.
    afterResponse: (hooks.afterResponse ?? []).map(
      (hook) =>
        async ({ request, response, retryCount }) =>
          run(hook, { request: await redacted(request), response, retryCount }),
    ),
  };
}

async function redacted(request: Request): Promise<Request> {
  const body = await request.clone().text();
  return new Request(request.url, {
    method: request.method,
    headers: redactHeaders(request.headers),
    body: redactText(body),
  });
}
