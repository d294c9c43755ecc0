export { BodyTimeoutError } from './http/body.js';
export type { CoreAnswer, CoreRequest, LookupCore } from './http/core.js';
export {
  createLookupHandler,
  type LookupClientInfo,
  type LookupHandler,
  type LookupHandlerOptions,
} from './http/handler.js';
export {
  ERROR_MESSAGES,
  type ErrorStatus,
  HttpError,
} from './http/http.js';
export {
  createKeyResolver,
  type FixedKeyResolver,
  isWellFormedKey,
  type KeyEntry,
  type KeyResolver,
} from './http/keys.js';
export {
  createJsonLineLog,
  describeFailure,
  type JsonLineLog,
  type JsonLineLogOptions,
  type LookupFailed,
  type LookupLog,
  type LookupLogEvent,
  type LookupUnauthorized,
} from './http/log.js';
export {
  CHANGES_CHANNEL,
  type ChangeNotice,
  type StoreChange,
  type WorkspaceChange,
} from './model/changes.js';
export {
  DataDirLockedError,
  DiskFullError,
  LookupCoreError,
  type LookupCoreErrorCode,
  SchemaVersionError,
  StoreClosedError,
  StoreReadOnlyError,
  StoreUnavailableError,
} from './model/errors.js';
export { normalizeDomain, normalizeEmail } from './model/normalize.js';
export type * from './model/types.js';
export type { AnswerCacheOptions } from './store/cache.js';
export { type EmbeddedStoreOptions, openEmbeddedStore } from './store/embedded.js';
export type { TargetSessionAttrs } from './store/libpq-url.js';
export { openPostgresStore, type PostgresStoreOptions } from './store/postgres.js';
