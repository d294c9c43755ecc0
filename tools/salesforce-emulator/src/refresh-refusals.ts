// Why the token endpoint refuses a refresh, as a test chooses it (`Emulator.refuseRefresh`): the
// org's login policies (Login IP Ranges, Login Hours), a connected app the user is not approved
// for, a deactivated user, a refresh token expired or revoked, or a refusal without a reason.
// Each is a 400 with an OAuth `error` and `error_description`.
// https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_flow_errors.htm&type=5
// https://help.salesforce.com/s/articleView?id=sf.remoteaccess_oauth_refresh_token_flow.htm&type=5

/** A reason the token endpoint refuses a refresh. */
export type RefreshRefusal =
  | 'ip-restricted'
  | 'login-hours'
  | 'app-not-approved'
  | 'inactive-user'
  | 'expired-token'
  | 'authentication-failure';

/**
 * The answer per reason. The flow errors page lists `invalid_grant` "IP restricted or invalid
 * login hours", `invalid_app_access` "user is not admin approved to access this app",
 * `inactive_user` "user is inactive", and for the refresh token flow `invalid_grant` "expired
 * access/refresh token"; the refresh answers the two login policies apart ("ip restricted",
 * "login hours") and an unexplained refusal as "authentication failure".
 */
export const REFRESH_REFUSALS: Readonly<
  Record<RefreshRefusal, { readonly error: string; readonly error_description: string }>
> = {
  'ip-restricted': { error: 'invalid_grant', error_description: 'ip restricted' },
  'login-hours': { error: 'invalid_grant', error_description: 'login hours' },
  'app-not-approved': {
    error: 'invalid_app_access',
    error_description: 'user is not admin approved to access this app',
  },
  'inactive-user': { error: 'inactive_user', error_description: 'user is inactive' },
  'expired-token': { error: 'invalid_grant', error_description: 'expired access/refresh token' },
  'authentication-failure': { error: 'invalid_grant', error_description: 'authentication failure' },
};
