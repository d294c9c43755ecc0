/**
 * Identity keys of the store: domains and emails normalised as the lookup's contract defines them
 * (the client's test double uses the same functions), and the text PostgreSQL can hold.
 */
export { isStorableText, normalizeDomain, normalizeEmail } from '@service/lookup-contract';
