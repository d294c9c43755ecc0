/**
 * Text a login host wrote (an OAuth `error` and its description), made safe to print in a
 * terminal: its escape sequences would recolour, retitle or rewrite the user's screen, its
 * newlines could forge lines of our own, and a long answer would bury the message.
 */

/** What is kept of a host's text, in characters. */
export const HOST_TEXT_MAX = 300;

// biome-ignore lint/suspicious/noControlCharactersInRegex: escape sequences are what is removed
const ESCAPE_SEQUENCE = /\u001b(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|.)/gu;
/** C0 and C1 controls, DEL, line and paragraph separators, and bidirectional overrides. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is removed
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/gu;

/** `value` without escape sequences or control characters, cut to `max` characters. */
export function hostText(value: string, max = HOST_TEXT_MAX): string {
  const plain = value.replace(ESCAPE_SEQUENCE, '').replace(CONTROL, ' ').trim();
  const characters = [...plain];
  return characters.length > max
    ? `${characters.slice(0, max).join('')}… (${characters.length - max} more characters)`
    : plain;
}
