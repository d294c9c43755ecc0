/**
 * Which transport carried the lookup's secret key, told from the request headers (no key header:
 * the body). The names are those of the client's `KeyTransport`.
 */
export function sentBy(headers: HeadersInit | undefined): 'bearer' | 'header' | 'body' {
  const present = new Headers(headers);
  if (present.has('authorization')) return 'bearer';
  return present.has('x-service-secret-key') ? 'header' : 'body';
}
