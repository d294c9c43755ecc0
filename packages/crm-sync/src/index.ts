// The aggregates lookup-core's store keeps, defined once with the lookup's contract and built
// into this package's types (the root entry imports nothing of lookup-core).
export type {
  ActivityAggregate,
  CompanyAggregate,
  ContactAggregate,
  LinkedInTotals,
  ObservedCompany,
  PurchaseIntent,
  SessionSource,
} from '@service/lookup-contract';
export {
  buildProfileFieldPermissionsRequest,
  buildUpsertCustomFieldRequests,
  DEFAULT_API_VERSION,
  METADATA_BATCH_LIMIT,
  type MetadataRequest,
  type MetadataRequestOptions,
} from './metadata/requests.js';
export {
  type MetadataError,
  type MetadataResponse,
  type MetadataResult,
  parseMetadataResults,
  type SoapFault,
} from './metadata/results.js';
export {
  type SourceFile,
  type SourceFormatOptions,
  toSourceFormat,
} from './metadata/source-format.js';
export type { CustomFieldDefinition } from './metadata/xml.js';
export {
  type CatalogueField,
  type CustomFieldSpec,
  type CustomFieldType,
  customFields,
  customFieldsOf,
  type FieldMetadata,
  type FieldSource,
  fieldCatalogue,
  fieldSources,
  intentLabels,
  type StandardField,
  type SyncTrigger,
  standardFields,
  syncTriggers,
  trafficSources,
} from './model/catalogue.js';
export { chunk } from './model/chunk.js';
export {
  type DomainResult,
  emailMatchKey,
  parseDomain,
  registrableDomain,
} from './model/domain.js';
export { CrmSyncError, type CrmSyncErrorCode } from './model/errors.js';
export { isFreeMailDomain } from './model/free-mail.js';
export {
  type CrmObject,
  crmObjects,
  type FieldValue,
  type FieldValues,
  isCrmObject,
  type QueryObject,
} from './model/objects.js';
export { defineFieldMappings, type FieldMapping } from './plan/field-mappings.js';
export {
  type CrmFacts,
  type FieldValueOptions,
  type SyncSubject,
  toFieldValues,
  type WriteOperation,
} from './plan/field-values.js';
export { formatPlan } from './plan/format.js';
export {
  type CustomerTypes,
  computePipelineStage,
  defaultCustomerTypes,
  type OpportunityFacts,
  type PipelineStage,
  type PipelineStageInput,
  type PipelineStageResult,
} from './plan/pipeline-stage.js';
export { planSync } from './plan/plan.js';
export { holdsValue } from './plan/stored-values.js';
export { classifyTrafficSource, type TrafficSource } from './plan/traffic-source.js';
export {
  type CreateStep,
  type CrmAccount,
  type CrmContact,
  type CrmFieldValues,
  type CrmLead,
  type CrmOpportunity,
  type CrmSnapshot,
  type DuplicateCheck,
  defaultExportSettings,
  type ExportSettings,
  type FeedPostStep,
  type Motion,
  type MotionAction,
  type MotionConditions,
  motionActions,
  type PlanStep,
  type PlanSyncInput,
  type SkipCode,
  type SkipStep,
  type SubjectRef,
  type SyncFacts,
  type SyncPlan,
  type UpdateStep,
} from './plan/types.js';
export { updateFields } from './plan/update-fields.js';
export {
  COMPOSITE_BATCH_LIMIT,
  type CompositeRecord,
  type CompositeRequestError,
  type CompositeSaveResult,
  type CompositeUpdateBody,
  collectCompositeResults,
  groupedByObject,
  type RecordError,
  type RecordOutcome,
  type RecordUpdate,
  toCompositeUpdates,
} from './rest/composite.js';
export {
  accountOwnerFields,
  baselineFields,
  buildQuery,
  type ChildQuery,
  escapeSoqlString,
  packTerms,
  type QueryOptions,
  SOQL_MAX_LENGTH,
  type SoqlCondition,
  type SoqlDateLiteral,
  type SoqlOperator,
  type SoqlValue,
} from './rest/soql.js';
