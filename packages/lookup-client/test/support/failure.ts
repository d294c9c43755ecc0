import { expect } from 'vitest';
import { LookupError } from '../../src/index.js';

/** The `LookupError` a call rejects with; fails the test when it resolves or rejects otherwise. */
export async function failure(promise: Promise<unknown>): Promise<LookupError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  expect(error).toBeInstanceOf(LookupError);
  return error as LookupError;
}
