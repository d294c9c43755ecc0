/**
 * Whether an error a `fetch` threw says the network failed: only then is a retry worth making and
 * `ConnectionError` the truth. ky already recognises the runtimes' wordings of a failed fetch
 * (undici's and Deno's "fetch failed", Chrome's "Failed to fetch"...) as its `NetworkError`; Bun
 * words its own but gives the system's code. Anything else (a permission the runtime refused, a
 * TypeError from a bug) is not the network's, and no retry fixes it.
 */
import { isNetworkError } from 'ky';

/** A system error's code (ECONNREFUSED, ENOTFOUND, EAI_AGAIN...), not Node's ERR_ of a misuse. */
const SYSTEM_CODE = /^E(AI_)?[A-Z]+$/;

export function isNetworkFailure(error: unknown): boolean {
  return isNetworkError(error) || SYSTEM_CODE.test(String((error as { code?: unknown })?.code));
}
