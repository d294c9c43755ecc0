/**
 * Which transport carried the lookup's secret key, told from the request headers (no key header:
 * the body). The names are those of the client's `KeyTransport`; the header names are the
 * contract's.
 */
import { KEY_HEADER } from '@service/lookup-contract';

export function sentBy(headers: HeadersInit | undefined): 'bearer' | 'header' | 'body' {
  const present = new Headers(headers);
  if (present.has('authorization')) return 'bearer';
  return present.has(KEY_HEADER) ? 'header' : 'body';
}
