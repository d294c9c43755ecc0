/** Where the lookup answers by default. */
export const LOOKUP_PATH = '/api/service/lookup';

/** Longest accepted `email`, in characters (RFC 5321's longest path). */
export const MAX_EMAIL_LENGTH = 320;
/** Longest accepted `domain` as sent, in characters: it may be a whole URL. */
export const MAX_DOMAIN_INPUT_LENGTH = 2048;
/** Contacts per company and site sessions per contact, at most (docs/lookup-core/http-api.md). */
export const MAX_ENTRIES = 10;
/** The server's default request body limit, in bytes (16 KiB). */
export const MAX_BODY_BYTES = 16_384;
