// How the emulator routes a request: each API family is a table of routes (a method, a path
// pattern, what answers it), tried in order; server.ts holds the tables and the order of the
// families.
import type { IncomingMessage } from 'node:http';
import type { Fault, RecordedRequest } from './requests.ts';

/** How an answer is sent: status, a JSON payload (or text: XML, plain) and extra headers. */
export type Send = (status: number, payload: unknown, headers?: Record<string, string>) => void;

/** One request as the routes see it, with the fault injected into it, if any. */
export interface Call {
  readonly method: string;
  readonly url: URL;
  readonly path: string;
  readonly req: IncomingMessage;
  readonly body: string;
  readonly record: RecordedRequest;
  readonly fault: Fault | undefined;
  readonly send: Send;
}

/** A REST API call: answered with the API usage header, its JSON body parsed on demand. */
export interface RestCall extends Call {
  readonly reply: (status: number, payload: unknown) => void;
  readonly json: () => Record<string, unknown>;
}

/** One row of a family's table: a method (any when absent), a path, and what answers it. */
export interface Route<C extends Call> {
  readonly method?: string;
  readonly path: RegExp;
  /** Answers the call; `false` when it does not after all, so routing goes on. */
  readonly handle: (call: C, match: RegExpExecArray) => unknown;
}

/** Answers `call` with the first route of `routes` matching `path`; false when none did. */
export async function answer<C extends Call>(
  routes: readonly Route<C>[],
  call: C,
  path: string,
): Promise<boolean> {
  for (const route of routes) {
    if (route.method !== undefined && route.method !== call.method) continue;
    const match = route.path.exec(path);
    if (match && (await route.handle(call, match)) !== false) return true;
  }
  return false;
}

export const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The identity service answers an expired or invalid token with 403 Bad_OAuth_Token (a
 * plain-text body), not the REST API's 401 INVALID_SESSION_ID.
 * https://help.salesforce.com/s/articleView?id=sf.remoteaccess_using_userinfo_endpoint.htm
 */
export function badOAuthToken({ send }: Call): void {
  send(403, 'Bad_OAuth_Token', { 'content-type': 'text/plain;charset=UTF-8' });
}
