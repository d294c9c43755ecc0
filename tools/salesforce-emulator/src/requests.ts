// What the emulator records of each request, and the faults a test injects into requests.

/** A request as the emulator received it (tests read `emulator.requests`). */
export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: string;
  /** Request headers, without `authorization`. */
  headers: Record<string, string>;
  status: number;
  /** For Metadata SOAP calls: the operation and how many components it carried. */
  soap?: { operation: string; components: number };
}

/** What goes wrong with a request a fault matches. */
export type FaultKind =
  | 'expired-session'
  | 'unavailable'
  | 'lock'
  | 'request-limit'
  /**
   * Too many long-running requests (20 seconds or more) at once in the org: the same
   * REQUEST_LIMIT_EXCEEDED as the daily limit, told apart by its message. It clears as those
   * requests finish.
   * https://developer.salesforce.com/docs/platform/salesforce-app-limits-cheatsheet/guide/salesforce-app-limits-platform-api.html
   */
  | 'concurrent-limit'
  | 'refresh-in-progress'
  /**
   * The server closes the connection without answering: what a client sees when it sends on a
   * kept-alive connection just as the server closes it for being idle (any server may close a
   * persistent connection at any time: RFC 9112 section 9.5).
   * https://www.rfc-editor.org/rfc/rfc9112#section-9.5
   */
  | 'closed-connection';

/** A fault to inject: its kind, the requests it matches, how many of them it hits. */
export interface FaultSpec {
  kind: FaultKind;
  method?: string;
  /** Matches when the request path (without query) contains this string or matches this RegExp. */
  path?: string | RegExp;
  /** How many matching requests get the fault (default 1). */
  times?: number;
  /** Let this many matching requests through first (default 0). */
  after?: number;
}

/** A fault as the emulator keeps it: its spec with how many requests it saw and hit. */
export interface Fault extends Required<Omit<FaultSpec, 'method' | 'path'>> {
  method: string | undefined;
  path: string | RegExp | undefined;
  seen: number;
  hits: number;
}
