/**
 * Chunks the org's own code refuses whole. "If a trigger ever throws an unhandled exception, all
 * records are marked with an error" (apex_triggers_exceptions): one record a customer's trigger
 * throws on fails every record written with it. Such a chunk is sent again in halves until the
 * refusing records are alone; the others are written in the same run.
 * https://developer.salesforce.com/docs/atlas.en-us.apexcode.meta/apexcode/apex_triggers_exceptions.htm
 * Decision: docs/design/2026-11-29-trigger-refused-chunks.md
 */
import type { RecordError } from '../../rest/composite.js';

/** Status codes of a failure in the org's own code (a trigger, a flow, the platform). */
const ORG_CODE = new Set(['CANNOT_INSERT_UPDATE_ACTIVATE_ENTITY', 'UNKNOWN_EXCEPTION']);
/** The Apex CPU limit ends a trigger whatever status code carries it. */
const CPU_LIMIT = /Apex CPU time limit exceeded/i;

/** The reason of the org's own code in `errors` (`CPU_LIMIT` or its status code), if any. */
export function orgCodeReason(errors: readonly RecordError[]): string | undefined {
  for (const error of errors) {
    if (CPU_LIMIT.test(error.message)) return 'CPU_LIMIT';
    if (ORG_CODE.has(error.statusCode)) return error.statusCode;
  }
  return undefined;
}

/**
 * The groups of `items` (by object) of more than one record that all failed for one same
 * reason of the org's own code: those a split can save. `errorsOf` gives a record's errors,
 * undefined when it was written.
 */
export function refusedWhole<T extends { readonly object: string }>(
  items: readonly T[],
  errorsOf: (index: number) => readonly RecordError[] | undefined,
): T[][] {
  const groups = new Map<string, { items: T[]; reasons: Set<string | undefined> }>();
  for (const [index, item] of items.entries()) {
    const errors = errorsOf(index);
    const group = groups.get(item.object) ?? { items: [], reasons: new Set() };
    group.items.push(item);
    group.reasons.add(errors ? orgCodeReason(errors) : undefined);
    groups.set(item.object, group);
  }
  return [...groups.values()]
    .filter((g) => g.items.length > 1 && g.reasons.size === 1 && !g.reasons.has(undefined))
    .map((g) => g.items);
}

/** The two halves of `items` (the first one the longer). */
export function halves<T>(items: readonly T[]): [T[], T[]] {
  const middle = Math.ceil(items.length / 2);
  return [items.slice(0, middle), items.slice(middle)];
}
