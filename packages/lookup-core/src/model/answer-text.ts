/**
 * A store's lookup can carry a second form of itself that answers the body as JSON text, exactly
 * as the database rendered it, so the handler sends those bytes without a parse/serialise round
 * trip. It rides on the `lookup` function itself: a store whose `lookup` is replaced (a wrapper, a
 * test double) loses it, and its own `lookup` is used and serialised.
 */
import type { LookupQuery, LookupStore } from './types.js';

const ANSWER_TEXT = Symbol('service.answerText');

/** The answer as JSON: text, or its UTF-8 bytes ready to send; `null` when there is none. */
export type AnswerText = (query: LookupQuery) => Promise<string | Uint8Array | null>;
type WithText = LookupStore['lookup'] & { [ANSWER_TEXT]?: AnswerText };

/** `lookup`, carrying `text` as its JSON-text form. */
export function withAnswerText(
  lookup: LookupStore['lookup'],
  text: AnswerText,
): LookupStore['lookup'] {
  return Object.assign(lookup, { [ANSWER_TEXT]: text });
}

/** The JSON-text form of a store's lookup, when it has one. */
export const answerTextOf = (lookup: LookupStore['lookup']): AnswerText | undefined =>
  (lookup as WithText)[ANSWER_TEXT];
