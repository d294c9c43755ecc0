/**
 * `@service/crm-sync/salesforce`: connect to an org, set up the service's fields, read
 * Accounts/Contacts/Leads/Opportunities, write records and apply a plan of the core's planner.
 * @packageDocumentation
 */

export {
  type AuthorizationRequest,
  createAuthorization,
  exchangeCode,
  LOGIN_HOSTS,
  type OAuthClient,
  resolveLoginUrl,
  SCOPES,
  type TokenSet,
} from './salesforce/auth/oauth.js';
export type { BulkPolling } from './salesforce/bulk/jobs.js';
export type { BulkOptions } from './salesforce/bulk/options.js';
export type { BulkReadOptions } from './salesforce/bulk/query.js';
export {
  type ConnectionOptions,
  type ConnectionStats,
  connect,
  type HttpMethod,
  type Identity,
  parseLimitInfo,
  type RefreshedSession,
  type RequestOptions,
  type RestResponse,
  type RetryPolicy,
  SalesforceConnection,
  type SaveResult,
  type TransportOptions,
} from './salesforce/connection/connection.js';
export {
  connectFromEnv,
  type EnvironmentConnectionOptions,
} from './salesforce/connection/environment.js';
export type { JsforceConnection, JsforceRequest } from './salesforce/connection/jsforce.js';
export {
  type ApiLimit,
  type ApiUsage,
  redact,
  SalesforceApiLimitError,
  SalesforceError,
  type SalesforceErrorCode,
  type SalesforceErrorDetails,
  SalesforcePermissionError,
} from './salesforce/errors.js';
export {
  type CrmChanges,
  type CrmChangesOptions,
  DEFAULT_OVERLAP_SECONDS,
  type ObjectRead,
  RECYCLE_BIN_DAYS,
  readCrmChanges,
  readMissing,
} from './salesforce/read/crm-changes.js';
export {
  type CrmRead,
  type CrmReadOptions,
  type DescribeField,
  type DescribePicklistEntry,
  describeFields,
  invalidColumn,
  type QueryCallOptions,
  type QueryPage,
  queryAll,
  type ReadOptions,
  type ReadResult,
  readCrm,
  readRecords,
} from './salesforce/read/reads.js';
export type { ExistingField } from './salesforce/setup/existing-fields.js';
export {
  type FieldChange,
  type FieldResult,
  type FieldSetupOptions,
  type FieldSetupPlan,
  type FieldSetupResult,
  PERMISSION_REMEDY,
  type Preflight,
  planFieldSetup,
  preflight,
  setUpFields,
} from './salesforce/setup/fields.js';
export {
  type CrmSnapshotFile,
  defaultSnapshotPath,
  readSnapshotFile,
  SNAPSHOT_FORMAT,
  type SnapshotObjectState,
  withWriting,
  writeSnapshotFile,
} from './salesforce/state/crm-snapshot.js';
export {
  type ApplyJournal,
  fileJournal,
  memoryJournal,
  stepKey,
} from './salesforce/state/journal.js';
export {
  type ApplyOptions,
  type ApplyProgress,
  type ApplyResult,
  applyPlan,
  type StepOutcome,
  type StepStatus,
} from './salesforce/write/apply.js';
export {
  type Budget,
  CALLS_PER_JOB,
  checkBudget,
  defaultReserve,
  estimateWriteCalls,
  type WriteEstimate,
} from './salesforce/write/budget.js';
export type {
  CreateDefaults,
  CreateDefaultsByObject,
} from './salesforce/write/create-defaults.js';
export type { FieldFit } from './salesforce/write/fit-values.js';
export type { Refusal } from './salesforce/write/outcomes.js';
export { CANNOT_SEE_ALL } from './salesforce/write/visibility.js';
export {
  type CreateOptions,
  createRecord,
  postFeedItem,
  type UpdateRecordsOptions,
  updateRecord,
  updateRecords,
} from './salesforce/write/writes.js';
