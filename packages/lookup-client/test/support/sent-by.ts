import type { KeyTransport } from '../../src/index.js';

/** Which transport carried the key, told from the request headers (no key header: the body). */
export function sentBy(headers: HeadersInit | undefined): KeyTransport {
  const present = new Headers(headers);
  if (present.has('authorization')) return 'bearer';
  return present.has('x-service-secret-key') ? 'header' : 'body';
}
