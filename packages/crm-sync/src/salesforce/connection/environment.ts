/**
 * A connection from the environment, under the Salesforce CLI's variable names, for scripts that
 * run where `service-crm login` never ran (CI jobs, serverless functions).
 */
import { type ConnectionOptions, connect, type SalesforceConnection } from './connection.js';

/**
 * `connect()`'s options other than the session, which `connectFromEnv` reads from the environment.
 */
export type EnvironmentConnectionOptions = Omit<
  ConnectionOptions,
  'instanceUrl' | 'accessToken' | 'refreshToken' | 'clientId' | 'clientSecret' | 'loginUrl'
>;

/**
 * `SF_INSTANCE_URL` and `SF_ACCESS_TOKEN` (required), with `SF_REFRESH_TOKEN`, `SF_CLIENT_ID`,
 * `SF_CLIENT_SECRET` and `SF_LOGIN_URL` letting an expired session refresh itself.
 * `undefined` when the two required variables are not both set.
 */
export function connectFromEnv(
  env: Readonly<Record<string, string | undefined>> = process.env,
  options: EnvironmentConnectionOptions = {},
): SalesforceConnection | undefined {
  const { SF_INSTANCE_URL, SF_ACCESS_TOKEN } = env;
  if (!SF_INSTANCE_URL || !SF_ACCESS_TOKEN) return undefined;
  return connect({
    ...options,
    instanceUrl: SF_INSTANCE_URL,
    accessToken: SF_ACCESS_TOKEN,
    refreshToken: env.SF_REFRESH_TOKEN,
    clientId: env.SF_CLIENT_ID,
    clientSecret: env.SF_CLIENT_SECRET,
    loginUrl: env.SF_LOGIN_URL,
  });
}
