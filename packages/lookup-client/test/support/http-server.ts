/** A real node:http server on loopback that records what the client sent. */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import { close, listen } from '@service/test-support';

export interface ReceivedRequest {
  readonly method: string | undefined;
  readonly url: string | undefined;
  readonly headers: IncomingHttpHeaders;
  readonly body: Record<string, unknown>;
}

/** Answers one request; leaving `response` unanswered makes the client wait. */
export type Responder = (request: ReceivedRequest, response: ServerResponse) => void;

export interface TestServer {
  readonly baseUrl: string;
  readonly requests: ReceivedRequest[];
  close(): Promise<void>;
}

export async function startServer(respond: Responder): Promise<TestServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer(async (incoming, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const request = {
      method: incoming.method,
      url: incoming.url,
      headers: incoming.headers,
      body: text === '' ? {} : JSON.parse(text),
    };
    requests.push(request);
    respond(request, response);
  });
  return { baseUrl: await listen(server), requests, close: () => close(server) };
}

export function sendJson(
  response: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, { 'content-type': 'application/json', ...headers });
  response.end(JSON.stringify(body));
}
