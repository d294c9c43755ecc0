/**
 * Whether an error a `fetch` threw says the network failed: only then is a retry worth making and
 * `ConnectionError` the truth. ky recognises the runtimes' wordings of a failed fetch (undici's
 * "fetch failed", Chrome's "Failed to fetch", Firefox's, Safari's, Deno's, Cloudflare's...) and
 * throws its `NetworkError` for them; Bun words its own but gives the system's code. Anything else
 * (a permission the runtime refused, a TypeError from a bug) is not the network's, and no retry
 * fixes it.
 */
import { isNetworkError } from 'ky';

/** A system error's code (ECONNREFUSED, ENOTFOUND, EAI_AGAIN...), not Node's ERR_ of a misuse. */
const SYSTEM_CODE = /^E(AI_)?[A-Z]+$/;

/** Whether `error` (ky's, or what a `fetch` threw) is the network failing. */
export function isNetworkFailure(error: unknown): boolean {
  return isNetworkError(error) || SYSTEM_CODE.test(String((error as { code?: unknown })?.code));
}
