/**
 * Whether an error a `fetch` threw says the network failed: only then is a retry worth making and
 * `ConnectionError` the truth. Runtimes word a failed fetch as a TypeError of their own (undici's
 * and Deno's, Chrome's, Firefox's, Safari's, Cloudflare's, cross-fetch's); Bun words its own but
 * gives the system's code. Anything else (a permission the runtime refused, a TypeError from a
 * bug) is not the network's, and no retry fixes it.
 */

const FAILED_FETCH = new RegExp(
  '^(fetch failed|terminated|network error|Network request failed|Network connection lost|' +
    'NetworkError when attempting to fetch resource\\.|' +
    'The Internet connection appears to be offline\\.| A network error occurred\\.|' +
    'Failed to fetch( \\(.*\\))?|error sending request for url.*)$',
);
/** Safari's wording, which a bug's TypeError may share: Safari's own carries no stack. */
const SAFARI_FAILED_FETCH = /^Load failed( \(.*\))?$/;

/** A system error's code (ECONNREFUSED, ENOTFOUND, EAI_AGAIN...), not Node's ERR_ of a misuse. */
const SYSTEM_CODE = /^E(AI_)?[A-Z]+$/;

export function isNetworkFailure(error: unknown): boolean {
  return isFailedFetch(error) || SYSTEM_CODE.test(String((error as { code?: unknown })?.code));
}

function isFailedFetch(error: unknown): boolean {
  if (!(error instanceof Error) || error.name !== 'TypeError') return false;
  const { message, stack } = error;
  return FAILED_FETCH.test(message) || (SAFARI_FAILED_FETCH.test(message) && stack === undefined);
}
