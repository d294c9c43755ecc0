/**
 * Rendered lookup answers (and 404s), kept per (workspace, email or domain, includeActivity) and
 * dropped exactly when a change notice names something they were read from: the company's domain,
 * or the email of a contact they list. Bounded by entries and by bytes, least recently used first
 * within a workspace. Workspaces share the bounds fairly: when the cache is full, a workspace using
 * more than an equal share (the bounds divided by the workspaces holding answers) gives up its own
 * oldest answers for its new ones, and a workspace within its share takes room from the workspace
 * using the most. One workspace's crawl of distinct lookups so evicts its own answers, not others'.
 *
 * A lookup that was running while a change arrived may have read the old data: its answer is not
 * kept (every fill checks that its workspace saw no change, and the cache no reset, since it began).
 */
import type { ChangeNotice } from '../model/changes.js';
import type { LookupQuery } from '../model/types.js';

/**
 * Bounds of a store's answer cache (the `cache` option of both stores). Answers are dropped as soon
 * as an ingest changes what they were read from, and workspaces share the room fairly.
 */
export interface AnswerCacheOptions {
  /** Most answers kept (default 100 000); 0 turns the cache off. */
  maxEntries?: number;
  /**
   * Most bytes kept (default 256 MiB; 0 turns the cache off), counted as an answer's bytes (two per
   * character when kept as a string), two per character of its key, plus 64 per entry.
   */
  maxBytes?: number;
}

export const DEFAULT_CACHE_ENTRIES = 100_000;
/**
 * Room for the lookup bench's distinct answers (figures: docs/design/2026-11-27-measured-choices.md): a working set cycled through a smaller LRU
 * cache would miss on every lookup.
 */
export const DEFAULT_CACHE_BYTES = 256 * 1024 * 1024;

/** Whether a store given these options keeps answers: only when asked to (`cache: {}` or bounds). */
export const cacheWanted = (
  options: AnswerCacheOptions | undefined,
): options is AnswerCacheOptions =>
  options !== undefined &&
  (options.maxEntries ?? DEFAULT_CACHE_ENTRIES) > 0 &&
  (options.maxBytes ?? DEFAULT_CACHE_BYTES) > 0;
/** What an entry costs beside its strings: the Map slots, the entry object, its index links. */
const ENTRY_OVERHEAD = 64;

/** What an answer was read from, so the cache knows which notices reach it. */
export interface AnswerSource {
  /** The company's domain (absent for a 404). */
  domain?: string;
  /** The emails of the contacts the answer lists. */
  emails?: readonly string[];
}

/** A kept answer: its JSON, as bytes ready to send (or as text), or `null` for a 404. */
export type KeptAnswer = string | Uint8Array | null;

interface Entry {
  key: string;
  home: Holder;
  text: KeptAnswer;
  bytes: number;
  dependencies: string[];
  /**
   * Its neighbours by recency in its workspace: a list, so a hit moves it to the newest end in
   * constant time.
   */
  older: Entry | undefined;
  newer: Entry | undefined;
}

/** One workspace's answers: what they count for, and the ends of their recency list. */
interface Holder {
  workspace: string;
  entries: number;
  bytes: number;
  oldest: Entry | undefined;
  newest: Entry | undefined;
}

/** A fill's starting point: the answer is kept only if nothing changed in between. */
export interface FillTicket {
  readonly workspace: string;
  readonly generation: number;
  readonly epoch: number;
}

const SEP = '\u0000';
const keyOf = (q: LookupQuery) =>
  `${q.workspace}${SEP}${q.email !== undefined ? `e${SEP}${q.email}` : `d${SEP}${q.domain}`}${SEP}${q.includeActivity ? 1 : 0}`;
const domainId = (workspace: string, domain: string) => `${workspace}${SEP}d${SEP}${domain}`;
const emailId = (workspace: string, email: string) => `${workspace}${SEP}e${SEP}${email}`;

export class AnswerCache {
  readonly #maxEntries: number;
  readonly #maxBytes: number;
  readonly #entries = new Map<string, Entry>();
  /**
   * The workspaces holding answers, each with its recency list. (Re-inserting a hit into the Map to
   * keep the order there cost a hit 10 to 25% more instructions, with 200 and 10,000 entries.)
   */
  readonly #holders = new Map<string, Holder>();
  /** domain/email id -> keys of the entries read from it. */
  readonly #dependents = new Map<string, Set<string>>();
  /** Bumped by every change to a workspace. */
  readonly #generations = new Map<string, number>();
  /** Bumped by every reset. */
  #epoch = 0;
  #bytes = 0;
  #evictions = 0;

  constructor(options: AnswerCacheOptions = {}) {
    this.#maxEntries = options.maxEntries ?? DEFAULT_CACHE_ENTRIES;
    this.#maxBytes = options.maxBytes ?? DEFAULT_CACHE_BYTES;
  }

  get enabled(): boolean {
    return this.#maxEntries > 0 && this.#maxBytes > 0;
  }

  /** How many answers are kept, and the bytes they count for. */
  get size(): { entries: number; bytes: number } {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  /** Answers dropped to stay within the bounds (not those a change made stale), since creation. */
  get evictions(): number {
    return this.#evictions;
  }

  /** The kept answer: its text, `null` for a kept 404, `undefined` when none is kept. */
  get(query: LookupQuery): KeptAnswer | undefined {
    const entry = this.#entries.get(keyOf(query));
    if (entry === undefined) return undefined;
    if (entry !== entry.home.newest) {
      this.#unlink(entry);
      this.#append(entry);
    }
    return entry.text;
  }

  /** Taken before reading the database for `query`. */
  begin(query: LookupQuery): FillTicket {
    const { workspace } = query;
    return { workspace, generation: this.#generations.get(workspace) ?? 0, epoch: this.#epoch };
  }

  /** Keeps an answer read since `ticket`, unless a change or reset came in between. */
  fill(ticket: FillTicket, query: LookupQuery, text: KeptAnswer, source: AnswerSource): void {
    if (!this.enabled || ticket.epoch !== this.#epoch) return;
    if ((this.#generations.get(ticket.workspace) ?? 0) !== ticket.generation) return;
    const key = keyOf(query);
    const size = text === null ? 0 : typeof text === 'string' ? 2 * text.length : text.byteLength;
    const bytes = 2 * key.length + size + ENTRY_OVERHEAD;
    if (bytes > this.#maxBytes) return;
    const { workspace } = query;
    const dependencies = [
      query.email !== undefined
        ? emailId(workspace, query.email)
        : domainId(workspace, query.domain ?? ''),
    ];
    if (source.domain !== undefined) dependencies.push(domainId(workspace, source.domain));
    for (const email of source.emails ?? []) dependencies.push(emailId(workspace, email));
    this.#remove(key);
    let home = this.#holders.get(workspace);
    if (home === undefined) {
      home = { workspace, entries: 0, bytes: 0, oldest: undefined, newest: undefined };
      this.#holders.set(workspace, home);
    }
    const entry: Entry = {
      key,
      home,
      text,
      bytes,
      dependencies,
      older: undefined,
      newer: undefined,
    };
    this.#entries.set(key, entry);
    this.#append(entry);
    home.entries++;
    home.bytes += bytes;
    this.#bytes += bytes;
    for (const id of dependencies) {
      const keys = this.#dependents.get(id) ?? new Set<string>();
      this.#dependents.set(id, keys);
      keys.add(key);
    }
    while (this.#entries.size > this.#maxEntries || this.#bytes > this.#maxBytes) {
      const oldest = this.#victimFor(home).oldest;
      if (oldest === undefined) break;
      this.#remove(oldest.key);
      this.#evictions++;
    }
  }

  /** The fraction of the tighter bound a workspace's answers take. */
  #usage(holder: Holder): number {
    return Math.max(holder.entries / this.#maxEntries, holder.bytes / this.#maxBytes);
  }

  /**
   * Whose oldest answer makes room for `filler`'s new one: `filler`'s own while it uses more than
   * an equal share, else the workspace using the most.
   */
  #victimFor(filler: Holder): Holder {
    if (this.#usage(filler) * this.#holders.size > 1) return filler;
    let largest = filler;
    for (const holder of this.#holders.values())
      if (this.#usage(holder) > this.#usage(largest)) largest = holder;
    return largest;
  }

  /** Drops what a committed change touched; a reset drops everything. */
  apply(notice: ChangeNotice | { reset: true }): void {
    if ('reset' in notice) {
      this.#epoch++;
      this.#entries.clear();
      this.#holders.clear();
      this.#dependents.clear();
      this.#generations.clear();
      this.#bytes = 0;
      return;
    }
    const { workspace } = notice;
    this.#generations.set(workspace, (this.#generations.get(workspace) ?? 0) + 1);
    if ('all' in notice) {
      const holder = this.#holders.get(workspace);
      while (holder?.oldest !== undefined) this.#remove(holder.oldest.key);
      return;
    }
    const ids = [
      ...notice.domains.map((domain) => domainId(workspace, domain)),
      ...notice.emails.map((email) => emailId(workspace, email)),
    ];
    for (const id of ids) for (const key of this.#dependents.get(id) ?? []) this.#remove(key);
  }

  #remove(key: string): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    this.#entries.delete(key);
    this.#unlink(entry);
    this.#bytes -= entry.bytes;
    const { home } = entry;
    home.entries--;
    home.bytes -= entry.bytes;
    if (home.entries === 0) this.#holders.delete(home.workspace);
    for (const id of entry.dependencies) {
      const keys = this.#dependents.get(id);
      keys?.delete(key);
      if (keys?.size === 0) this.#dependents.delete(id);
    }
  }

  #unlink(entry: Entry): void {
    const { home } = entry;
    if (entry.older === undefined) home.oldest = entry.newer;
    else entry.older.newer = entry.newer;
    if (entry.newer === undefined) home.newest = entry.older;
    else entry.newer.older = entry.older;
    entry.older = undefined;
    entry.newer = undefined;
  }

  #append(entry: Entry): void {
    const { home } = entry;
    entry.older = home.newest;
    if (home.newest === undefined) home.oldest = entry;
    else home.newest.newer = entry;
    home.newest = entry;
  }
}
