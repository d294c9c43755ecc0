/**
 * The key a request's headers present, judged strictly (docs/lookup-core/http-api.md, "The key"):
 * the rule is part of the lookup's contract, shared with the client's test double.
 * Transport-neutral: it reads headers through a getter, so the Fetch handler passes
 * `(name) => headers.get(name)` and a node:http shell `(name) => req.headersDistinct[name]`.
 */
export { type HeaderGetter, type HeaderValue, presentedHeaderKey } from '@service/lookup-contract';
