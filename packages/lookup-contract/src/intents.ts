/** The purchase intent levels the spec names, lowest first (the store ranks them in this order). */
export const PURCHASE_INTENTS = ['low', 'medium', 'high', 'very_high'] as const;

/**
 * A purchase intent level of the lookup's contract, lowest first: `low`, `medium`, `high`, `very_high`. The
 * same type wherever `@service/lookup-client`, `@service/lookup-core` and `@service/crm-sync` export
 * it; an answer read by the client may also carry a level a newer server added
 * (`OpenPurchaseIntent`).
 */
export type PurchaseIntent = (typeof PURCHASE_INTENTS)[number];
/** A level the spec names, or one a newer server added (kept as the string it sent). */
export type OpenPurchaseIntent = PurchaseIntent | (string & {});

/** Exactly one of the named levels. */
export const KNOWN_INTENT = new RegExp(`^(${PURCHASE_INTENTS.join('|')})$`);
