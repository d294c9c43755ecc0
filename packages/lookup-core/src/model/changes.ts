/**
 * What a committed ingest batch changed, as told to lookup servers: in-process through
 * `IngestOptions.onCommitted`, across processes through PostgreSQL's change log
 * (`service_lookup_changes`, one row per notice) and, as a wake-up, `NOTIFY` on `CHANGES_CHANNEL`.
 * A notice names exactly the companies (domains) and contacts (emails) whose answers may differ.
 */

/** The `LISTEN`/`NOTIFY` channel ingest announces its commits on. */
export const CHANGES_CHANNEL = 'service_lookup_changes';

/** What one committed ingest batch touched. `domains`/`emails` normalised as stored. */
export interface StoreChange {
  /** The workspace the batch wrote to. */
  readonly workspace: string;
  /** Companies whose answers may differ now. */
  readonly domains: readonly string[];
  /** Contacts whose answers may differ now. */
  readonly emails: readonly string[];
}

/** A change too large for NOTIFY's payload, coarsened to the whole workspace. */
export interface WorkspaceChange {
  /** The workspace whose every answer may differ now. */
  readonly workspace: string;
  /** Marks the notice as covering the whole workspace. */
  readonly all: true;
}

/** One notice of a committed change: exact keys, or a whole workspace. */
export type ChangeNotice = StoreChange | WorkspaceChange;

/**
 * PostgreSQL refuses a NOTIFY payload of 8000 bytes or more (in the server encoding, UTF-8 here);
 * the margin keeps every encoded notice clear of it.
 */
export const MAX_PAYLOAD_BYTES = 7900;

const byteLength = (s: string) => Buffer.byteLength(s, 'utf8');

/** The payload for `pg_notify`: JSON, always shorter than 8000 bytes. */
export function encodeChange(change: ChangeNotice): string {
  const whole = JSON.stringify({ w: change.workspace, all: true });
  if ('all' in change) return whole;
  const exact = JSON.stringify({ w: change.workspace, d: change.domains, e: change.emails });
  return byteLength(exact) <= MAX_PAYLOAD_BYTES ? exact : whole;
}

const isStrings = (v: unknown): v is string[] =>
  Array.isArray(v) && v.every((s) => typeof s === 'string');

/** The notice of a payload, or `undefined` when it is not one `encodeChange` wrote. */
export function decodeChange(payload: string): ChangeNotice | undefined {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null) return undefined;
  const { w, all, d, e } = value as Record<string, unknown>;
  if (typeof w !== 'string') return undefined;
  if (all === true) return { workspace: w, all: true };
  if (!isStrings(d) || !isStrings(e)) return undefined;
  return { workspace: w, domains: d, emails: e };
}

/**
 * Splits a change into notices that each encode exactly (under the payload limit), so a large
 * batch invalidates what it touched rather than its whole workspace. Only a workspace name too
 * long to fit beside a single key falls back to a whole-workspace notice.
 */
export function splitChange(change: StoreChange): ChangeNotice[] {
  const overhead = byteLength(
    encodeChange({ workspace: change.workspace, domains: [], emails: [] }),
  );
  const notices: ChangeNotice[] = [];
  let domains: string[] = [];
  let emails: string[] = [];
  let size = overhead;
  const flush = () => {
    if (domains.length + emails.length === 0) return;
    notices.push({ workspace: change.workspace, domains, emails });
    domains = [];
    emails = [];
    size = overhead;
  };
  const add = (list: 'domains' | 'emails', key: string) => {
    // A key costs its JSON string form plus a separating comma.
    const cost = byteLength(JSON.stringify(key)) + 1;
    if (overhead + cost > MAX_PAYLOAD_BYTES) {
      notices.push({ workspace: change.workspace, all: true });
      return;
    }
    if (size + cost > MAX_PAYLOAD_BYTES) flush();
    (list === 'domains' ? domains : emails).push(key);
    size += cost;
  };
  for (const domain of change.domains) add('domains', domain);
  for (const email of change.emails) add('emails', email);
  flush();
  return notices;
}
