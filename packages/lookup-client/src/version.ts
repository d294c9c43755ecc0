/** Replaced with the package version at build time (tsup `define`, and vitest's for tests). */
declare const __LOOKUP_CLIENT_VERSION__: string;

/**
 * This package's version, as sent in every request's `x-service-client` and default `User-Agent`
 * headers (`@service/lookup-client/<VERSION>`).
 */
export const VERSION: string = __LOOKUP_CLIENT_VERSION__;
