/**
 * What the lookup tells its operator: plain data the handler reports (`LookupLogEvent`), and a
 * writer of one JSON line per failure that folds refused keys into one line per address and
 * minute, so a flood of wrong keys is seen without flooding the log. No event ever holds a key.
 */
import { keyLikePattern } from '@service/lookup-contract';
import { LookupCoreError } from '../model/errors.js';

/** A failure the client saw as a bare 500/503. `sqlstate` is PostgreSQL's five-character code. */
export interface LookupFailed {
  /** Always `'lookup_failed'`. */
  readonly event: 'lookup_failed';
  /** The `x-request-id` the client received. */
  readonly requestId: string;
  /** 503 when the store was unavailable, 500 for anything else. */
  readonly status: 500 | 503;
  /** The thrown error's class, e.g. `StoreUnavailableError`. */
  readonly errorClass: string;
  /** The error's message, followed by its causes' (`outer: cause: ...`), keys redacted. */
  readonly message: string;
  /** PostgreSQL's error code from the error's cause chain, when there is one. */
  readonly sqlstate: string | null;
  /** A system error code of the chain that is no SQLSTATE (e.g. `ECONNREFUSED`). */
  readonly code: string | null;
}

/** A request answered 401. `address` is the client's, when the transport knows it. */
export interface LookupUnauthorized {
  /** Always `'unauthorized'`. */
  readonly event: 'unauthorized';
  /** The `x-request-id` the client received. */
  readonly requestId: string;
  /** The client's IP address, or `null` when the transport does not tell it. */
  readonly address: string | null;
}

/** Everything the handler reports to its `log`: failures and refused keys. */
export type LookupLogEvent = LookupFailed | LookupUnauthorized;
/** Receives every event as it happens (the `log` option of `createLookupHandler`). */
export type LookupLog = (event: LookupLogEvent) => void;

const SQLSTATE = /^[0-9A-Z]{5}$/;
/** Anything shaped like a key, wherever a driver or a resolver might have put one. */
const KEY_LIKE = keyLikePattern();

/** The class, message chain, SQLSTATE and system code of an error, without a key in them. */
export function describeFailure(
  error: unknown,
): Pick<LookupFailed, 'errorClass' | 'message' | 'sqlstate' | 'code'> {
  const messages: string[] = [];
  let sqlstate: string | null = null;
  let code: string | null = null;
  // A cause chain is followed a few links deep, never round a cycle.
  for (let link: unknown = error, depth = 0; link !== undefined && depth < 5; depth++) {
    if (!(link instanceof Error)) {
      messages.push(String(link));
      break;
    }
    // A message that already quotes its cause's (a reason given with it) is not repeated.
    if (link.message !== '' && messages.at(-1)?.includes(link.message) !== true)
      messages.push(link.message);
    // Our own errors' codes name the error, as its class does; `code` is the driver's or the system's.
    const linkCode =
      link instanceof LookupCoreError ? undefined : (link as { code?: unknown }).code;
    if (typeof linkCode === 'string') {
      if (SQLSTATE.test(linkCode)) sqlstate ??= linkCode;
      else code ??= linkCode;
    }
    link = link.cause;
  }
  return {
    errorClass: error instanceof Error ? error.name : typeof error,
    message: messages.join(': ').replace(KEY_LIKE, 'sk_live_[redacted]'),
    sqlstate,
    code,
  };
}

/** Options of `createJsonLineLog`. */
export interface JsonLineLogOptions {
  /** The window refusals and repeated failures are counted over, in ms (default 60 000: a minute). */
  windowMs?: number;
  /** Most addresses counted apart per window; the rest are counted together (default 1 000). */
  maxAddresses?: number;
}

/** A JSON-line writer of the handler's events, made by `createJsonLineLog`. */
export interface JsonLineLog {
  /** Pass as the handler's `log` option. */
  readonly log: LookupLog;
  /** Writes the counts of the current window now (at shutdown, so none are lost). */
  flush(): void;
}

/** Addresses beyond `maxAddresses` in one window are counted under this one. */
const OTHER_ADDRESSES = 'other';
/** Kinds of failure counted apart per window; a kind beyond them is written line by line. */
const MAX_FAILURE_KINDS = 100;

/** Failures of one kind: the same status, class, SQLSTATE and system code. */
const kindOf = (failure: LookupFailed) =>
  JSON.stringify([failure.status, failure.errorClass, failure.sqlstate, failure.code]);

/**
 * One JSON line per address and window counting its 401s (`level: "warn"`, `event:
 * "unauthorized"`, `count`, `since`, `seconds`). A failure (`level: "error"`) is written at once
 * when it is the first of its kind in the window; the window's further failures of that kind are
 * folded into one line at its end, the last of them with `count` (how many were folded), `since`
 * and `seconds`, so an outage of the store writes a line per minute, not per request. Each line
 * carries `time` (ISO 8601). Memory is bounded: at most `maxAddresses` counters are held at once.
 */
export function createJsonLineLog(
  write: (line: string) => void,
  options: JsonLineLogOptions = {},
): JsonLineLog {
  const windowMs = options.windowMs ?? 60_000;
  const maxAddresses = options.maxAddresses ?? 1_000;
  const line = (entry: object) =>
    write(`${JSON.stringify({ time: new Date().toISOString(), ...entry })}\n`);
  let counts = new Map<string, number>();
  let failures = new Map<string, { last: LookupFailed | undefined; count: number }>();
  let since = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;

  function flush() {
    clearTimeout(timer);
    timer = undefined;
    const window = {
      since: new Date(since).toISOString(),
      seconds: Math.round((Date.now() - since) / 1000),
    };
    for (const [address, count] of counts)
      line({ level: 'warn', event: 'unauthorized', address, count, ...window });
    for (const { last, count } of failures.values())
      if (last !== undefined) line({ level: 'error', ...last, count, ...window });
    counts = new Map();
    failures = new Map();
  }

  function startWindow() {
    if (timer !== undefined) return;
    since = Date.now();
    // Started by the first event of a window, so an idle server holds no timer; unref'd, so it
    // never keeps a process alive.
    timer = setTimeout(flush, windowMs);
    (timer as { unref?: () => void }).unref?.();
  }

  function countUnauthorized(address: string) {
    startWindow();
    const counted = counts.has(address) || counts.size < maxAddresses ? address : OTHER_ADDRESSES;
    counts.set(counted, (counts.get(counted) ?? 0) + 1);
  }

  function foldFailure(failure: LookupFailed) {
    startWindow();
    const kind = kindOf(failure);
    const seen = failures.get(kind);
    if (seen !== undefined) {
      seen.last = failure;
      seen.count++;
      return;
    }
    if (failures.size < MAX_FAILURE_KINDS) failures.set(kind, { last: undefined, count: 0 });
    line({ level: 'error', ...failure });
  }

  return {
    log(event) {
      if (event.event === 'unauthorized') countUnauthorized(event.address ?? 'unknown');
      else foldFailure(event);
    },
    flush,
  };
}
