/**
 * One full garbage collection, run once an embedded store is open. Starting PGlite leaves hundreds
 * of megabytes of WebAssembly memory to the collector, and a server waiting for requests
 * allocates too little for V8 to run a full collection soon: until it does, that memory counts
 * against a container's limit (figures: docs/design/2026-11-29-lookup-at-the-limit.md). V8
 * defines `gc` only under --expose-gc, so the flag is set now and the function taken from a new
 * context, which is created with it (Node.js, Deno). Bun's contexts have no `gc`: it collects on
 * its own schedule.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * V8's "last resort" collection: several full collections that also shrink the young generation
 * (grown to 32 MB while PGlite started, 1 MB of it in use) and give freed pages back to the
 * system, which a regular one keeps pooled: the sample server 261 -> 217-220 MB.
 */
export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  if (typeof gc === 'function') gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}
