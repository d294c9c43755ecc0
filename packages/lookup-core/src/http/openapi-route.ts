/**
 * `GET /api/service/openapi.json`: the OpenAPI 3.1 document of the lookup, as shipped by
 * @service/lookup-client (generated there from the zod schemas of the wire contract). A wrapper
 * around a node:http listener, so it leaves the lookup's own shell as it is.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import document from '@service/lookup-client/openapi.json' with { type: 'json' };

export const OPENAPI_PATH = '/api/service/openapi.json';

type Listener = (request: IncomingMessage, response: ServerResponse) => void;

const body = JSON.stringify(document);
const headers = {
  'content-type': 'application/json; charset=utf-8',
  'content-length': String(Buffer.byteLength(body)),
  'cache-control': 'no-cache',
};

/** `listener`, answering GET and HEAD on any path ending with `/api/service/openapi.json` first. */
export function withOpenApiRoute(listener: Listener): Listener {
  return (request, response) => {
    const path = (request.url ?? '').split('?', 1)[0]?.replace(/\/+$/, '') ?? '';
    const read = request.method === 'GET' || request.method === 'HEAD';
    if (!read || !path.endsWith(OPENAPI_PATH)) return listener(request, response);
    response.writeHead(200, headers);
    response.end(request.method === 'HEAD' ? undefined : body);
  };
}
