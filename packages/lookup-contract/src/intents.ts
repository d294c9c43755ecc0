/** The purchase intent levels the spec names, lowest first (the store ranks them in this order). */
export const PURCHASE_INTENTS = ['low', 'medium', 'high', 'very_high'] as const;

/**
 * One of the four purchase intent levels the spec names. `@service/lookup-client`,
 * `@service/lookup-core` and `@service/crm-sync` export this same type; an answer's
 * `service_purchase_intent` is an {@link OpenPurchaseIntent}, which also admits a newer level.
 */
export type PurchaseIntent = (typeof PURCHASE_INTENTS)[number];
/** A level the spec names, or one a newer server added (kept as the string it sent). */
export type OpenPurchaseIntent = PurchaseIntent | (string & {});

/** Exactly one of the named levels. */
export const KNOWN_INTENT = new RegExp(`^(${PURCHASE_INTENTS.join('|')})$`);
