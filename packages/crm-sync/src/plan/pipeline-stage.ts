/**
 * Pipeline Stage of an account (docs/crm-sync/planning.md, "The Pipeline Stage"): a function of
 * the current CRM data, evaluated in priority order; the first matching row applies.
 */

export const pipelineStages = ['Customer', 'Opportunity', 'Lost Opportunity', 'Prospect'] as const;
/**
 * Where an Account stands: `Customer`, `Opportunity`, `Lost Opportunity` or `Prospect`.
 * @useDeclaredType
 */
export type PipelineStage = (typeof pipelineStages)[number];

/** What the Pipeline Stage needs of an Opportunity. */
export interface OpportunityFacts {
  readonly isClosed: boolean;
  readonly isWon: boolean;
}

/**
 * Which Account `Type` values mean a customer: exact values, or a test. The default takes any
 * value starting with `Customer`, so a default org's `Customer - Direct` and
 * `Customer - Channel` count, as does a plain `Customer`.
 */
export type CustomerTypes = readonly string[] | ((accountType: string) => boolean);

/**
 * Account `Type` values that make a customer by default: any value starting with `Customer`
 * (case-sensitive).
 */
export const defaultCustomerTypes: CustomerTypes = (accountType) =>
  accountType.startsWith('Customer');

/** An Account's type and Opportunities, from which its Pipeline Stage is computed. */
export interface PipelineStageInput {
  /** The Account's `Type` picklist value, if any. */
  readonly accountType?: string | null | undefined;
  readonly opportunities: readonly OpportunityFacts[];
  /** Default `defaultCustomerTypes` (any Type starting with `Customer`). */
  readonly customerTypes?: CustomerTypes | undefined;
}

function isCustomerType(accountType: string, customerTypes: CustomerTypes): boolean {
  return typeof customerTypes === 'function'
    ? customerTypes(accountType)
    : customerTypes.includes(accountType);
}

/** An Account's Pipeline Stage and why. */
export interface PipelineStageResult {
  readonly stage: PipelineStage;
  /** The row of the priority table that decided the stage, in words. */
  readonly reason: string;
}

/**
 * The Pipeline Stage of an Account, first match wins: `Customer` (a customer type or a won
 * Opportunity), `Opportunity` (one open), `Lost Opportunity` (all closed), `Prospect`.
 */
export function computePipelineStage(input: PipelineStageInput): PipelineStageResult {
  const { accountType, opportunities, customerTypes = defaultCustomerTypes } = input;
  if (accountType && isCustomerType(accountType, customerTypes)) {
    return { stage: 'Customer', reason: `account type is '${accountType}'` };
  }
  const won = opportunities.filter((o) => o.isWon).length;
  if (won > 0) {
    return { stage: 'Customer', reason: `${won} of ${opportunities.length} opportunities won` };
  }
  const open = opportunities.filter((o) => !o.isClosed).length;
  if (open > 0) {
    return {
      stage: 'Opportunity',
      reason: `${open} of ${opportunities.length} opportunities open`,
    };
  }
  if (opportunities.length > 0) {
    return {
      stage: 'Lost Opportunity',
      reason: `all ${opportunities.length} opportunities closed, none won`,
    };
  }
  return { stage: 'Prospect', reason: 'account exists, no opportunities' };
}
