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

export function collectGarbage(): void {
  setFlagsFromString('--expose-gc');
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : undefined');
  if (typeof gc === 'function') gc();
}
