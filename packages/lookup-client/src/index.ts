export {
  type Activity,
  LookupClient,
  type LookupClientOptions,
  type LookupPromise,
  type LookupQuery,
  type LookupRequestOptions,
  type LookupResponseInfo,
  type NoActivity,
} from './client.js';
export {
  type Answer,
  ConfigurationError,
  ConnectionError,
  InvalidInputError,
  type KeyTransport,
  LookupApiError,
  LookupError,
  type LookupErrorCode,
  NotFoundError,
  RateLimitError,
  RedirectError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedError,
} from './errors.js';
export type {
  AfterResponseState,
  BeforeRequestState,
  BeforeRetryState,
  Hook,
  LookupHooks,
} from './hooks.js';
export type { FetchFunction } from './http/fetch.js';
export {
  MAX_ENTRIES,
  type OpenPurchaseIntent,
  PURCHASE_INTENTS,
  type PurchaseIntent,
  schemas,
  strictSchemas,
} from './schemas.js';
export type {
  Company,
  Contact,
  ContactWithActivity,
  ErrorBody,
  LinkedInEngagement,
  LookupResponse,
  LookupResponseWithActivity,
  SiteSession,
} from './types.js';
export { VERSION } from './version.js';
