/**
 * The lookup's contract, defined once for the client, its test double, the OpenAPI document and
 * lookup-core's handler and store. No Node built-ins: it runs wherever the client runs.
 */
export type {
  ActivityAggregate,
  CompanyAggregate,
  ContactAggregate,
  LinkedInTotals,
  ObservedCompany,
  SessionSource,
} from './aggregates.js';
export {
  KNOWN_INTENT,
  type OpenPurchaseIntent,
  PURCHASE_INTENTS,
  type PurchaseIntent,
} from './intents.js';
export {
  type HeaderGetter,
  type HeaderValue,
  isWellFormedKey,
  KEY_BODY_FIELD,
  KEY_CHARACTER_CLASS,
  KEY_HEADER,
  KEY_HEADERS,
  KEY_PREFIX,
  type KeySpec,
  keyLikePattern,
  MAX_KEY_LENGTH,
  MIN_KEY_TAIL,
  parseKeySpec,
  presentedHeaderKey,
} from './keys.js';
export {
  LOOKUP_PATH,
  MAX_BODY_BYTES,
  MAX_DOMAIN_INPUT_LENGTH,
  MAX_EMAIL_LENGTH,
  MAX_ENTRIES,
} from './limits.js';
export { ERROR_MESSAGES, type ErrorStatus } from './messages.js';
export { isStorableText, normalizeDomain, normalizeEmail } from './normalize.js';
export {
  isKnownIntent,
  isUtcTimestamp,
  schemas,
  strictSchemas,
  UTC_TIMESTAMP,
} from './schemas.js';
