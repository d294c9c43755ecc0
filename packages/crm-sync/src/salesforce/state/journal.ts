/**
 * What an apply has written, by step key, so an interrupted run resumes where it stopped:
 * written updates are not sent again, created records are not created again, posts are not
 * posted twice. It also remembers what the org refused (`refused:<key>` entries: the status code
 * and a digest of the data sent), kept across finished runs, so the same data is not sent again
 * every run. In memory by default; `fileJournal` keeps it in a file (mode 0600), whose format is
 * unchanged: a JSON object of strings.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { PlanStep } from '../../plan/types.js';
import { writePrivateFile } from './private-file.js';

/**
 * Where `applyPlan` records finished steps, so an interrupted run resumes without writing twice.
 */
export interface ApplyJournal {
  /** The record or feed item id written for `key`, if this step was done before. */
  get(key: string): string | undefined;
  /** Remember steps by key, with the id each produced (one write for the whole batch). */
  record(entries: Readonly<Record<string, string>>): void | Promise<void>;
  /**
   * Forget the finished steps (a finished run: the next one starts afresh); the remembered
   * refusals are kept.
   */
  clear?(): void | Promise<void>;
}

/** A journal in memory: what `applyPlan` uses when given none. */
export function memoryJournal(entries: Record<string, string> = {}): ApplyJournal & {
  readonly entries: Record<string, string>;
  /** Forgets every step; keeps the refusals. */
  clear(): void;
} {
  const map = new Map(Object.entries(entries));
  return {
    get: (key) => map.get(key),
    record: (more) => {
      for (const [key, id] of Object.entries(more)) map.set(key, id);
    },
    clear: () => {
      const refusals = [...map].filter(([key]) => key.startsWith(REFUSED));
      map.clear();
      for (const [key, value] of refusals) map.set(key, value);
    },
    get entries() {
      return Object.fromEntries(map);
    },
  };
}

/**
 * A journal kept in a JSON file, rewritten atomically (temporary file, then rename) after every
 * `record` that adds entries (twice per batch of 200 updates: in flight, then written; once per
 * create or post), readable by the owner only. A missing file is an empty journal.
 */
export async function fileJournal(path: string): Promise<ApplyJournal> {
  let entries: Record<string, string> = {};
  try {
    entries = JSON.parse(await readFile(path, 'utf8')) as Record<string, string>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const memory = memoryJournal(entries);
  let writing = Promise.resolve();
  return {
    get: memory.get,
    async record(more) {
      if (Object.keys(more).length === 0) return;
      memory.record(more);
      const snapshot = JSON.stringify(memory.entries);
      writing = writing.then(() => writePrivateFile(path, snapshot));
      await writing;
    },
    async clear() {
      memory.clear();
      const snapshot = JSON.stringify(memory.entries);
      writing = writing.then(() => writePrivateFile(path, snapshot));
      await writing;
    },
  };
}

// The order of `localeCompare` (which keys written by earlier versions follow), from one
// collator instead of a new comparison set up per call.
const byLocale = new Intl.Collator().compare;

function digest(value: unknown): string {
  const sorted = JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => byLocale(a, b)),
        )
      : v,
  );
  return createHash('sha256').update(sorted).digest('base64url').slice(0, 16);
}

/** Marks a batch as sent before its answer is known; see `applyPlan` on resuming. */
export const inFlightKey = (key: string) => `in-flight:${key}`;

/** Keys already made: a run asks a step's key several times (200,000 steps at 100,000 companies). */
const keys = new WeakMap<PlanStep, string>();

/** The journal key of a step: equal across runs for the same write. */
export function stepKey(step: PlanStep): string {
  let key = keys.get(step);
  if (key === undefined) {
    key = keyOf(step);
    keys.set(step, key);
  }
  return key;
}

function keyOf(step: PlanStep): string {
  switch (step.type) {
    case 'update':
      return `update:${step.object}:${step.id}:${digest(step.fields)}`;
    case 'create':
      return `create:${step.idempotencyKey}`;
    case 'feedPost':
      return `feed:${step.idempotencyKey}`;
    case 'skip':
      return `skip:${digest(step.subject)}:${step.code}`;
  }
}

const REFUSED = 'refused:';

/** A digest of the data a step sends: its fields (and the links a create fills), or its text. */
function sentDigest(step: PlanStep): string {
  switch (step.type) {
    case 'update':
      return digest(step.fields);
    case 'create':
      return digest({ fields: step.fields, links: step.links });
    case 'feedPost':
      return digest(step.text);
    case 'skip':
      return '';
  }
}

/**
 * The journal entry that remembers the org refused `step` with `statusCode`: recorded with the
 * finished steps, read by `refusedBefore` in later runs.
 */
export function refusalEntry(step: PlanStep, statusCode: string): [key: string, value: string] {
  return [`${REFUSED}${stepKey(step)}`, `${statusCode} ${sentDigest(step)}`];
}

/**
 * The status code the org refused `step` with in an earlier run, when the data it would send is
 * the same as then; undefined when it was not refused or its data changed.
 */
export function refusedBefore(journal: ApplyJournal, step: PlanStep): string | undefined {
  const entry = journal.get(`${REFUSED}${stepKey(step)}`);
  if (entry === undefined) return undefined;
  const [statusCode, sent] = entry.split(' ');
  return sent === sentDigest(step) ? statusCode : undefined;
}
