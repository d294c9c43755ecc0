// The orgs an integrator picks from: a clean developer org, or one with the behaviours a
// customer's org tends to have switched on. Each behaviour is also an option of its own.
import type { EmulatorOptions } from './server.ts';

/** A named starting point for `startEmulator` and the `salesforce-emulator` command. */
export type OrgPreset = 'developer' | 'customer';

/** The names of the presets, for a command line's choices. */
export const ORG_PRESETS: readonly OrgPreset[] = ['developer', 'customer'];

/**
 * The customer behaviours the emulator has, each switchable on its own. Those a customer's org
 * may have that are not emulated yet are listed in the package's README.
 */
export interface OrgBehaviours {
  /** An active Lead assignment rule hands Leads written through REST to a queue user. */
  leadAssignmentRule: boolean;
  /** Text longer than its field's length is refused with STRING_TOO_LONG. */
  fieldLengths: boolean;
  /** The standard duplicate rules refuse creates that match (DUPLICATES_DETECTED). */
  duplicateRules: boolean;
  /**
   * Chatter's hourly rate limit: feed posts an hour before 503 (false: none). The customer
   * preset's 50 is a busy integration user's share; Salesforce publishes no figure.
   */
  chatterHourlyLimit: number | false;
  /** An Account/Contact/Lead trigger throws on names holding `[trigger-refuses]`, failing its chunk. */
  throwingTrigger: boolean;
  /** State and Country/Territory Picklists: address codes, integration values, states checked. */
  stateCountryPicklists: boolean;
  /** An email field's value that is not an address is refused with INVALID_EMAIL_ADDRESS. */
  emailFormat: boolean;
  /** Private sharing: records owned by others are hidden unless the user has View All. */
  limitedSharing: boolean;
  /** Person accounts among the Accounts (Account.IsPersonAccount). */
  personAccounts: boolean;
  /** Record types on Account, Contact and Lead; creates get the default one. */
  recordTypes: boolean;
  /** A validation rule refuses Leads created without an Industry. */
  validationRule: boolean;
}

const PRESETS: Record<OrgPreset, OrgBehaviours> = {
  developer: {
    leadAssignmentRule: false,
    fieldLengths: false,
    duplicateRules: false,
    chatterHourlyLimit: false,
    throwingTrigger: false,
    stateCountryPicklists: false,
    emailFormat: false,
    limitedSharing: false,
    personAccounts: false,
    recordTypes: false,
    validationRule: false,
  },
  customer: {
    leadAssignmentRule: true,
    fieldLengths: true,
    duplicateRules: true,
    chatterHourlyLimit: 50,
    throwingTrigger: true,
    stateCountryPicklists: true,
    emailFormat: true,
    limitedSharing: true,
    personAccounts: true,
    recordTypes: true,
    validationRule: true,
  },
};

/** The emulator options of `preset`, with `overrides` switching single behaviours on or off. */
export function presetOptions(
  preset: OrgPreset,
  overrides: Partial<OrgBehaviours> = {},
): EmulatorOptions {
  return { ...PRESETS[preset], ...overrides };
}
