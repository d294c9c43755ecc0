/**
 * A write that is not safe to send twice (a create, a feed post) whose answer may be lost: the
 * connection reset or timed out after the org may have applied it. Before it is sent again, the
 * org is asked for what it would have made, as a run resumed after a crash does.
 */
import { SalesforceError } from '../errors.js';

/** Sends after the first: a create or post is looked for, then sent again, at most twice more. */
const RESENDS = 2;

/** The call failed without an answer: the org may or may not have applied it. */
export function answerLost(error: unknown): boolean {
  return error instanceof SalesforceError && error.code === 'network';
}

/**
 * `send`'s result; when its answer is lost, what `lookFor` finds in the org, or else `send`
 * once more. Throws the last error when every attempt lost its answer and nothing was found.
 */
export async function sendUnlessMade<T>(
  send: () => Promise<T>,
  lookFor: () => Promise<T | undefined>,
): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!answerLost(error) || attempt >= RESENDS) throw error;
    }
    const made = await lookFor();
    if (made !== undefined) return made;
  }
}
