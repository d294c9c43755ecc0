/**
 * `@service/lookup-client/testing`: the lookup as msw request handlers over fixture data, so an
 * app's tests run offline against the same rules as the real server (see `double.ts`).
 *
 * ```ts
 * const server = setupServer(...lookupHandlers({ workspaces: [{ secretKeys: [KEY], companies }] }));
 * ```
 */
import { LOOKUP_PATH } from '@service/lookup-contract';
import { type HttpHandler, http } from 'msw';
import { createLookupDouble, type LookupDoubleOptions } from './double.js';

export type { LookupDoubleOptions, LookupWorkspace } from './double.js';

/** Options of {@link lookupHandlers}: the double's fixture data and rules, and where it answers. */
export interface LookupHandlersOptions extends LookupDoubleOptions {
  /**
   * The service's origin. Given, every request to it is answered (404 off the lookup path, as
   * the server does); absent, the lookup path of any origin is.
   */
  readonly baseUrl?: string | undefined;
}

/**
 * msw handlers answering `POST {baseUrl}/api/service/lookup` as the lookup server would, from
 * fixture data: the same key transports, status rules and answer shapes.
 *
 * @throws TypeError when the fixture data holds what the server could not have sent.
 * @example
 * ```ts
 * const server = setupServer(...lookupHandlers({ workspaces: [{ secretKeys: [KEY], companies: [acme] }] }));
 * ```
 */
export function lookupHandlers(options: LookupHandlersOptions): HttpHandler[] {
  const answer = createLookupDouble(options);
  const origin = options.baseUrl === undefined ? undefined : new URL(options.baseUrl).origin;
  const path = (options.path ?? LOOKUP_PATH).replace(/\/+$/, '');
  const handles = ({ request }: { request: Request }) => {
    const url = new URL(request.url);
    if (origin !== undefined) return url.origin === origin;
    return url.pathname.replace(/\/+$/, '').endsWith(path);
  };
  return [http.all(handles, ({ request }) => answer(request))];
}
