/** Replaced with the package version at build time (tsup `define`, and vitest's for tests). */
declare const __LOOKUP_CLIENT_VERSION__: string;

export const VERSION: string = __LOOKUP_CLIENT_VERSION__;
