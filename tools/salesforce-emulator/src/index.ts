/** The emulated org's entry points: start it on loopback, seed it, and the users and fields tests name. */
import { fileURLToPath } from 'node:url';

export type { ApiDisabled } from './api-disabled.ts';
export { LOGIN_ERROR } from './authorize.ts';
export type { BulkAnswer, BulkApi, Job, JobState } from './bulk.ts';
export { type HandMadeField, seedCustomField } from './custom-field-metadata.ts';
export {
  CUSTOMER_SYNC_CONFIG,
  type CustomerFate,
  type CustomerOrg,
  type CustomerSubject,
  customerOrg,
} from './customer-org.ts';
export { createdDuplicates } from './customer-org-duplicates.ts';
export {
  type CommandRun,
  type CustomerOrgRun,
  type RunCommand,
  runCustomerOrg,
  type SyncFigures,
} from './customer-org-run.ts';
export type { Schema } from './metadata.ts';
export {
  customFieldDescribe,
  type FieldDescribe,
  type FieldType,
  Org,
  type PicklistEntry,
  type ProfileSetup,
  type Relationship,
  type SfRecord,
  STANDARD_USER,
  SYSTEM_ADMINISTRATOR,
} from './org.ts';
export { addPersonAccount } from './person-accounts.ts';
export { ORG_PRESETS, type OrgBehaviours, type OrgPreset, presetOptions } from './presets.ts';
export type { RefreshRefusal } from './refresh-refusals.ts';
export { type Seeded, type SeedOptions, seedOrg } from './seed.ts';
export { type EventOptions, sessionEvents, toNdjson } from './seed-events.ts';
export { type SeedFile, SeedFileError, seedFromFile } from './seed-file.ts';
export {
  Emulator,
  type EmulatorOptions,
  type FaultKind,
  type FaultSpec,
  type RecordedRequest,
  startEmulator,
} from './server.ts';
export { grantViewAll } from './sharing.ts';
export {
  refusedByName,
  type ThrowingTriggerOption,
  TRIGGER_REFUSES,
  type TriggerPredicate,
  type TriggerThrow,
} from './throwing-trigger.ts';
export { VALIDATION_MESSAGE } from './validation-rule.ts';

/** A Node script that writes an `sf` CLI login for the emulated org (see the file). */
export const SF_CLI_LOGIN = fileURLToPath(
  // Beside this module: the source when run from this repository, the built file when installed.
  new URL(`./sf-cli-login.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`, import.meta.url),
);
