// What a refused refresh becomes, for each OAuth error the token endpoint answers with: its code
// and a remedy that fits (salesforce/auth/refusals.ts).
import { describe, expect, it } from 'vitest';
import { refreshRefusal } from '../../src/salesforce/auth/refusals.js';
import { SalesforceError } from '../../src/salesforce/errors.js';

/** A refusal as `requestRefresh` throws it. */
const refused = (error: string, description: string) =>
  new SalesforceError('auth_failed', `The session refresh failed: ${error} (${description})`, {
    errorCode: error,
    body: { error, error_description: description },
  });

describe('refreshRefusal', () => {
  it.each([
    ['invalid_grant', 'ip restricted', 'ip_restricted', /Login IP Ranges/],
    [
      'invalid_grant',
      'IP restricted or invalid login hours',
      'ip_restricted',
      /Login IP Ranges, or it is outside its Login Hours/,
    ],
    ['invalid_grant', 'login hours', 'login_hours', /Login Hours/],
    [
      'invalid_app_access',
      'user is not admin approved to access this app',
      'app_not_approved',
      /not approved/,
    ],
    ['inactive_user', 'user is inactive', 'user_inactive', /deactivated or frozen/],
    ['invalid_grant', 'inactive user', 'user_inactive', /deactivated or frozen/],
    ['invalid_grant', 'expired access/refresh token', 'session_expired', /Log in again/],
    ['invalid_grant', 'authentication failure', 'auth_failed', /Login History/],
    [
      'invalid_grant',
      'token request is already being processed',
      'session_expired',
      /Log in again/,
    ],
  ])('%s "%s" is %s', (error, description, code, remedy) => {
    const result = refreshRefusal(refused(error, description));
    expect(result.code).toBe(code);
    expect(result.message).toMatch(remedy);
    expect(result.errorCode).toBe(error);
  });

  it('keeps a refresh that never reached the token endpoint as session_expired', () => {
    const network = new SalesforceError(
      'auth_failed',
      'The session refresh failed: network error (fetch failed)',
      {
        body: { error_description: 'fetch failed' },
      },
    );
    expect(refreshRefusal(network)).toMatchObject({
      code: 'session_expired',
      message: 'The session refresh failed: network error (fetch failed). Log in again.',
    });
  });
});
