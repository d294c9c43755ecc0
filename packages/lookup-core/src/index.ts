export { type AnswerText, withAnswerText } from './answer-text.js';
export { BodyTimeoutError } from './body.js';
export type { AnswerCacheOptions } from './cache.js';
export type { CoreAnswer, CoreRequest, LookupCore } from './core.js';
export { type EmbeddedStoreOptions, openEmbeddedStore } from './embedded.js';
export { StoreClosedError, StoreUnavailableError } from './errors.js';
export {
  createLookupHandler,
  type LookupClientInfo,
  type LookupHandler,
  type LookupHandlerOptions,
} from './handler.js';
export {
  ERROR_MESSAGES,
  type ErrorStatus,
  errorResponse,
  HttpError,
  jsonResponse,
} from './http.js';
export { createKeyResolver, isWellFormedKey, type KeyEntry, type KeyResolver } from './keys.js';
export {
  createJsonLineLog,
  describeFailure,
  type JsonLineLog,
  type JsonLineLogOptions,
  type LookupFailed,
  type LookupLog,
  type LookupLogEvent,
  type LookupUnauthorized,
} from './log.js';
export { normalizeDomain, normalizeEmail } from './normalize.js';
export { openPostgresStore, type PostgresStoreOptions } from './postgres.js';
export {
  CHANGES_CHANNEL,
  type ChangeNotice,
  type StoreChange,
  type WorkspaceChange,
} from './sql/changes.js';
export type * from './types.js';
