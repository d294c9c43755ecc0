/**
 * Which transport carried the lookup's secret key, told from the request headers (no key header:
 * the body). The names are those of the client's `KeyTransport`; the header names are the
 * contract's. A subpath of its own: the contract is TypeScript source that only a test runner (or a
 * bundler) loads, and the main entry is also run by plain Node (the benchmarks).
 */
import { KEY_HEADER } from '@service/lookup-contract';

export function sentBy(headers: HeadersInit | undefined): 'bearer' | 'header' | 'body' {
  const present = new Headers(headers);
  if (present.has('authorization')) return 'bearer';
  return present.has(KEY_HEADER) ? 'header' : 'body';
}
