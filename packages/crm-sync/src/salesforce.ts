/**
 * `@service/crm-sync/salesforce`: connect to an org, set up the service's fields, read
 * Accounts/Contacts/Leads/Opportunities, write records and apply a plan of the core's planner.
 */
export {
  type ConnectionOptions,
  type ConnectionStats,
  connect,
  DEFAULT_API_VERSION,
  type Identity,
  parseLimitInfo,
  type RequestOptions,
  type RestResponse,
  type RetryPolicy,
  SalesforceConnection,
} from './salesforce/connection.js';
export {
  type ApiUsage,
  redact,
  SalesforceApiLimitError,
  SalesforceError,
  type SalesforceErrorCode,
  type SalesforceErrorDetails,
  SalesforcePermissionError,
} from './salesforce/errors.js';
export {
  type AuthorizationRequest,
  createAuthorization,
  exchangeCode,
  LOGIN_HOSTS,
  type OAuthClient,
  resolveLoginUrl,
  SCOPES,
  type TokenSet,
} from './salesforce/oauth.js';
