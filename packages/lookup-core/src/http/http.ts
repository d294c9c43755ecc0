/** The errors the handler answers with (their messages: the lookup's contract), and the headers of its JSON answers. */
import { ERROR_MESSAGES, type ErrorStatus } from '@service/lookup-contract';

export { ERROR_MESSAGES, type ErrorStatus };

/** An error that maps to one HTTP status and its `{ "error": message }` body. */
export class HttpError extends Error {
  /** Always `'HttpError'`. */
  override readonly name = 'HttpError';
  /** The HTTP status the handler answers with. */
  readonly status: ErrorStatus;
  /** The error for `status`, with the contract's message for it. */
  constructor(status: ErrorStatus) {
    super(ERROR_MESSAGES[status]);
    this.status = status;
  }
}

/** The headers of every JSON answer: no cache keeps one (lookups are per key and per moment). */
export const JSON_HEADERS: Readonly<Record<string, string>> = {
  'content-type': 'application/json; charset=utf-8',
  'cache-control': 'no-store',
};

const ERROR_BODIES = new Map(
  Object.entries(ERROR_MESSAGES).map(([status, error]) => [
    Number(status),
    JSON.stringify({ error }),
  ]),
);

/** `{"error":"<message for status>"}`, serialised once per status. */
export const errorBody = (status: ErrorStatus): string => ERROR_BODIES.get(status) ?? '';
