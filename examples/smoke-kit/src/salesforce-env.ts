/** What a Salesforce org on loopback (the emulator of `tools/salesforce-emulator`) hands out. */
export interface LoopbackOrg {
  /** Its login host, for refreshes. */
  readonly url: string;
  readonly clientId: string;
  /** A fresh session, as a completed login gives. */
  issueTokens(): { accessToken: string; refreshToken: string; instanceUrl: string };
}

/**
 * The `SF_*` environment the CRM examples read (`connectFromEnv` of `@service/crm-sync/salesforce`)
 * for a fresh session of `org`, with what it takes to refresh that session.
 */
export function salesforceEnv(
  org: LoopbackOrg,
): Record<
  'SF_INSTANCE_URL' | 'SF_ACCESS_TOKEN' | 'SF_REFRESH_TOKEN' | 'SF_CLIENT_ID' | 'SF_LOGIN_URL',
  string
> {
  const tokens = org.issueTokens();
  return {
    SF_INSTANCE_URL: tokens.instanceUrl,
    SF_ACCESS_TOKEN: tokens.accessToken,
    SF_REFRESH_TOKEN: tokens.refreshToken,
    SF_CLIENT_ID: org.clientId,
    SF_LOGIN_URL: org.url,
  };
}
