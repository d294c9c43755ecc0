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
