/** The emulated org's entry points: start it on loopback, seed it, and the users and fields tests name. */
export { LOGIN_ERROR } from './authorize.ts';
export {
  customFieldDescribe,
  type FieldDescribe,
  Org,
  type SfRecord,
  STANDARD_USER,
  SYSTEM_ADMINISTRATOR,
} from './org.ts';
export { type Seeded, type SeedOptions, seedOrg } from './seed.ts';
export {
  Emulator,
  type EmulatorOptions,
  type FaultKind,
  type FaultSpec,
  type RecordedRequest,
  startEmulator,
} from './server.ts';
