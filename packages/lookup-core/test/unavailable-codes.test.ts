// Which driver errors mean "the database is not accepting work right now" (503), not a failed query.
import { describe, expect, it } from 'vitest';
import { isUnavailable } from '../src/model/errors.js';

const withCode = (code: string) => Object.assign(new Error('from the driver'), { code });

describe('isUnavailable', () => {
  it.each([
    ['55000', 'database does not allow connections (ALLOW_CONNECTIONS false)'],
    ['57P03', 'starting up, shutting down or in failover'],
    ['57P01', 'terminated by an administrator'],
    ['ECONNREFUSED', 'no server listening'],
  ])('%s (%s) is transient', (code) => {
    expect(isUnavailable(withCode(code))).toBe(true);
  });

  it.each([
    ['42P01', 'undefined table'],
    ['23505', 'unique violation'],
  ])('%s (%s) is a failed statement', (code) => {
    expect(isUnavailable(withCode(code))).toBe(false);
  });
});
