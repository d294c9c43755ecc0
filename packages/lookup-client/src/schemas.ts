/**
 * The wire schemas the client checks answers with, and publishes: defined once, with the rest of
 * the lookup's contract, in the workspace package @service/lookup-contract (bundled into this
 * package's build, never a dependency of it).
 */
export {
  MAX_ENTRIES,
  type OpenPurchaseIntent,
  PURCHASE_INTENTS,
  type PurchaseIntent,
  schemas,
  strictSchemas,
} from '@service/lookup-contract';
