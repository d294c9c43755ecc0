/**
 * How long a query sent by GET may be. Salesforce answers 414 when the URI and the headers
 * together pass 16,384 bytes, and a query travels in the URI percent-encoded (`/query?q=`): a
 * list of 2,500 ordinary emails is already 22,000 bytes there.
 * https://help.salesforce.com/s/articleView?id=000386264&type=1
 */
import type { QueryOptions } from '../../rest/soql.js';

/** Salesforce's limit on a request's URI and headers together, in bytes. */
export const MAX_URI_AND_HEADERS = 16_384;

/** Kept for the path before `?q=` and the headers (bearer token, jsforce's, a proxy's). */
const PATH_AND_HEADERS_ROOM = 4_384;

/** The bound for `buildQuery` and `packTerms`: 12,000 bytes of percent-encoded SOQL. */
export const queryUriBound: Required<Pick<QueryOptions, 'maxLength' | 'measure'>> = {
  maxLength: MAX_URI_AND_HEADERS - PATH_AND_HEADERS_ROOM,
  measure: (soql) => encodeURIComponent(soql).length,
};
