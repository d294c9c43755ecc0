export {
  LookupClient,
  type LookupClientOptions,
  type LookupQuery,
  type LookupRequestOptions,
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
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
} from './errors.js';
export type { FetchFunction } from './http.js';
export type {
  Company,
  Contact,
  ContactWithActivity,
  ErrorBody,
  LinkedInEngagement,
  LookupResponse,
  LookupResponseWithActivity,
  PurchaseIntent,
  SiteSession,
} from './schemas.js';
export * as schemas from './schemas.js';
export { VERSION } from './version.js';
