/**
 * The aggregates `@service/lookup-core` keeps per company and contact: one definition, in the
 * lookup's contract, shared with lookup-core and built into this package's types (the root entry
 * imports nothing of lookup-core), so a value read from the store is passed as it is.
 */
export type {
  ActivityAggregate,
  CompanyAggregate,
  ContactAggregate,
  LinkedInTotals,
  ObservedCompany,
  PurchaseIntent,
  SessionSource,
} from '@service/lookup-contract';
