/**
 * Why the token endpoint refused a refresh, as an error whose code and remedy fit the reason:
 * logging in again helps only when the refresh token expired or was revoked; the org's login
 * policies, an unapproved connected app and a deactivated user need an admin (or, for login
 * hours, a later run). Matched on the OAuth `error` and `error_description`.
 * https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_flow_errors.htm&type=5
 * https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_refresh_token_flow.htm&type=5
 */
import { redact, SalesforceError, type SalesforceErrorCode } from '../errors.js';

interface Refusal {
  readonly code: SalesforceErrorCode;
  /** Matches `error: error_description`. */
  readonly when: RegExp;
  readonly remedy: string;
}

const REFUSALS: readonly Refusal[] = [
  {
    // The flow errors page's own wording names both policies at once.
    code: 'ip_restricted',
    when: /ip restricted or invalid login hours/i,
    remedy:
      "the user's profile refuses this login: this machine's IP address is outside its Login IP Ranges, or it is outside its Login Hours. Run from an address in those ranges within those hours, or an admin changes them for the integration user's profile. Logging in again does not help.",
  },
  {
    code: 'ip_restricted',
    when: /ip restricted|ip address not allowed/i,
    remedy:
      "Salesforce refused this machine's IP address: the user's profile has Login IP Ranges that do not include it. Run from an address in those ranges, or an admin adds this address to the ranges (or sets the connected app's IP Relaxation to relax IP restrictions). Logging in again does not help.",
  },
  {
    code: 'login_hours',
    when: /login hours/i,
    remedy:
      "it is outside the user's Login Hours (set on the user's profile). Run the command again within those hours, or an admin widens them for the integration user's profile. Logging in again does not help.",
  },
  {
    code: 'app_not_approved',
    when: /^invalid_app_access:|not admin approved|app not approved|hasn't approved|app.*blocked/i,
    remedy:
      'the connected app is not approved for this user (its Permitted Users are "Admin approved users are pre-authorized" and the user has no profile or permission set that allows it), or it is blocked. An admin allows the user in the connected app\'s Manage Profiles or Manage Permission Sets, or unblocks the app in Connected Apps OAuth Usage; then log in again.',
  },
  {
    code: 'user_inactive',
    when: /^inactive_user:|inactive user|user is inactive|frozen/i,
    remedy:
      'the user is deactivated or frozen. An admin reactivates (or unfreezes) the user, or you log in as another active user with `service-crm login`.',
  },
  {
    code: 'session_expired',
    when: /expired|revoked/i,
    remedy:
      "the refresh token expired (the connected app's Refresh Token Policy) or was revoked (an admin, a password reset, or too many tokens for the app). Log in again with `service-crm login`.",
  },
  {
    code: 'auth_failed',
    when: /authentication failure/i,
    remedy:
      "Salesforce refused the refresh without naming a reason (authentication failure). Log in again with `service-crm login`; if that fails too, an admin reads the user's Login History for the cause.",
  },
];

/** The error of a refresh the token endpoint refused (`refused`: as `requestRefresh` threw it). */
export function refreshRefusal(refused: SalesforceError): SalesforceError {
  const body = (refused.body ?? {}) as { error?: string; error_description?: string };
  const said = `${body.error ?? refused.errorCode ?? ''}: ${body.error_description ?? ''}`;
  const details = {
    ...(refused.errorCode ? { errorCode: refused.errorCode } : {}),
    body: refused.body,
  };
  const refusal = refused.errorCode ? REFUSALS.find((r) => r.when.test(said)) : undefined;
  if (refusal === undefined) {
    return new SalesforceError(
      'session_expired',
      `${redact(refused.message)}. Log in again.`,
      details,
    );
  }
  return new SalesforceError(
    refusal.code,
    `The session expired and Salesforce refused to renew it (${redact(said)}): ${refusal.remedy}`,
    details,
  );
}
