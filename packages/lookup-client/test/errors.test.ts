/** Every error class, raised by answers of a real node:http server on loopback. */
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ConnectionError,
  InvalidInputError,
  LookupApiError,
  LookupClient,
  NotFoundError,
  RateLimitError,
  ResponseValidationError,
  ServerError,
  TimeoutError,
  UnauthorizedError,
  UnexpectedError,
} from '../src/index.js';
import { failure } from './support/failure.js';
import { company, KEY, lookupBody } from './support/fixtures.js';
import { type Responder, sendJson, startServer, type TestServer } from './support/http-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(respond: Responder, maxRetries = 0) {
  server = await startServer(respond);
  return new LookupClient({
    secretKey: KEY,
    baseUrl: server.baseUrl,
    keyTransport: 'bearer',
    maxRetries,
  });
}

/** The address of a loopback port nothing listens on any more. */
async function closedPort(): Promise<string> {
  const closed = await startServer(() => undefined);
  await closed.close();
  return closed.baseUrl;
}

describe('error answers', () => {
  it.each([
    [400, 'Invalid input', InvalidInputError, 'InvalidInputError', 'invalid_input'],
    [404, 'Not found', NotFoundError, 'NotFoundError', 'not_found'],
    [429, 'Too many requests', RateLimitError, 'RateLimitError', 'rate_limited'],
    [500, 'Internal error', ServerError, 'ServerError', 'server_error'],
    [503, 'Unavailable', ServerError, 'ServerError', 'server_error'],
    [418, "I'm a teapot", LookupApiError, 'LookupApiError', 'api_error'],
  ] as const)(
    '%i becomes %s with status, body, headers and request id',
    async (status, message, Class, name, code) => {
      const client = await clientFor((_request, response) =>
        sendJson(response, status, { error: message }, { 'x-request-id': `req_${status}` }),
      );
      const error = await failure(client.lookup({ email: 'ada@acme.com' }));
      expect(error).toBeInstanceOf(Class);
      expect(error).toBeInstanceOf(LookupApiError);
      expect(error).toMatchObject({
        name,
        code,
        status,
        body: { error: message },
        requestId: `req_${status}`,
      });
      expect(error.headers?.get('content-type')).toBe('application/json');
      expect(error.message).toBe(`Lookup failed: ${status} ${message}`);
    },
  );

  it('keeps a body that is not JSON as text, and has no request id when none was sent', async () => {
    const client = await clientFor((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/html' });
      response.end('<h1>Bad gateway</h1>');
    });
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.body).toBe('<h1>Bad gateway</h1>');
    expect(error.requestId).toBeUndefined();
  });

  it('401 becomes UnauthorizedError naming the transport tried', async () => {
    const client = await clientFor((_request, response) =>
      sendJson(response, 401, { error: 'Unauthorized' }),
    );
    const error = await failure(client.lookup({ email: 'ada@acme.com' }));
    expect(error).toBeInstanceOf(UnauthorizedError);
    expect(error).toMatchObject({ code: 'unauthorized', status: 401, transportsTried: ['bearer'] });
    expect(error.message).toBe('Lookup failed: 401 Unauthorized (secret key sent by: bearer)');
  });
});

describe('no answer', () => {
  it('a refused connection becomes ConnectionError with the cause', async () => {
    const baseUrl = await closedPort();
    const client = new LookupClient({ secretKey: KEY, baseUrl, maxRetries: 0 });
    const error = await failure(client.lookup({ email: 'ada@acme.com' }));
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect(error).toMatchObject({
      name: 'ConnectionError',
      code: 'connection_error',
      status: undefined,
    });
    expect(error.cause).toBeInstanceOf(TypeError);
    expect(error.message).toBe(`Could not reach the lookup service at ${baseUrl} (1 attempt).`);
  });

  it('a failure of the code, not the network, becomes UnexpectedError with the cause, tried once', async () => {
    server = await startServer((_request, response) => sendJson(response, 200, lookupBody));
    const bug = new TypeError('(0 , import_ky2.default) is not a function');
    let attempts = 0;
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: server.baseUrl,
      fetch: async () => {
        attempts++;
        throw bug;
      },
    });
    const error = await failure(client.lookup({ email: 'ada@acme.com' }));
    expect(error).toBeInstanceOf(UnexpectedError);
    expect(error).toMatchObject({
      name: 'UnexpectedError',
      code: 'unexpected_error',
      status: undefined,
    });
    expect(error.cause).toBe(bug);
    expect(error.message).toBe(
      'Lookup failed, not retried: TypeError: (0 , import_ky2.default) is not a function',
    );
    expect(attempts).toBe(1);
    expect(server.requests).toHaveLength(0);
  });

  it('a server that never answers becomes TimeoutError, a kind of ConnectionError', async () => {
    const client = await clientFor(() => undefined);
    const error = await failure(client.lookup({ email: 'ada@acme.com' }, { timeout: 50 }));
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ name: 'TimeoutError', code: 'timeout' });
    expect(error.message).toBe('Lookup timed out after 50 ms (1 attempt).');
  });

  it('a body that stalls after the headers also times out', async () => {
    const client = await clientFor((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"company":');
    });
    const error = await failure(client.lookup({ email: 'ada@acme.com' }, { timeout: 50 }));
    expect(error).toBeInstanceOf(TimeoutError);
  });
});

describe('response validation', () => {
  it('a success missing a required field is ResponseValidationError with the zod issues', async () => {
    const { service_visitors: _dropped, ...partial } = company;
    const client = await clientFor((_request, response) =>
      sendJson(response, 200, { company: partial, contacts: [] }, { 'x-request-id': 'req_drift' }),
    );
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error).toMatchObject({
      code: 'response_validation_error',
      status: 200,
      requestId: 'req_drift',
      body: { company: partial, contacts: [] },
    });
    const { issues } = error as ResponseValidationError;
    expect(issues.map((issue) => issue.path)).toEqual([['company', 'service_visitors']]);
    expect(error.message).toMatch(
      /^Lookup response does not match the schema: company\.service_visitors: /,
    );
  });

  it('a success that is not JSON is ResponseValidationError', async () => {
    const client = await clientFor((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' });
      response.end('<html>login</html>');
    });
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as ResponseValidationError).issues[0]).toMatchObject({
      code: 'custom',
      message: 'Expected a JSON body',
    });
  });

  it('unknown fields are kept', async () => {
    const client = await clientFor((_request, response) =>
      sendJson(response, 200, {
        ...lookupBody,
        company: { ...company, employees: 40 },
        next_cursor: 'abc',
      }),
    );
    const result = await client.lookup({ domain: 'acme.com' });
    expect(result.company).toMatchObject({ employees: 40 });
    expect(result).toMatchObject({ next_cursor: 'abc' });
  });
});

describe('the secret key stays out of errors', () => {
  it.each([
    ['an error status', 400],
    ['a refusal', 401],
    ['a gateway echoing the key', 403],
  ])('%s', async (_label, status) => {
    const client = await clientFor((request, response) =>
      sendJson(response, status, { error: `rejected ${request.headers.authorization}` }),
    );
    const error = await failure(client.lookup({ email: 'ada@acme.com' }));
    expect(error.message).not.toContain(KEY);
    expect(error.message).toContain('sk_live_[redacted]');
    // The error's own fields and stack, as a logger prints them: only the echoed body holds the key.
    const printed = inspect({ ...error, body: undefined }, { depth: 10 }) + error.stack;
    expect(printed).not.toContain(KEY);
  });

  it('in a connection error', async () => {
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: await closedPort(),
      keyTransport: 'body',
      maxRetries: 0,
    });
    const error = await failure(client.lookup({ email: 'ada@acme.com' }));
    expect(inspect(error, { depth: 10 })).not.toContain(KEY);
  });
});

describe('an error printed as Node prints an uncaught one', () => {
  it("shows the answer's headers, redacted, and JSON keeps them", async () => {
    const client = await clientFor((request, response) => {
      response.setHeader('www-authenticate', 'Bearer realm="lookup"');
      response.setHeader('x-echo', String(request.headers.authorization));
      sendJson(response, 401, { error: 'Unauthorized' });
    });
    const error = await failure(client.lookup({ email: 'ada@acme.com' }));
    expect(error).toBeInstanceOf(UnauthorizedError);
    // Node prints an uncaught error without the custom inspection Headers has.
    const printed = inspect(error, { customInspect: false });
    expect(printed).toContain(`'www-authenticate': 'Bearer realm="lookup"'`);
    expect(printed).toContain(`'x-echo': 'Bearer sk_live_[redacted]'`);
    expect(JSON.parse(JSON.stringify(error)).headers).toMatchObject({
      'content-type': 'application/json',
      'x-echo': 'Bearer sk_live_[redacted]',
    });
    expect(error.headers?.get('www-authenticate')).toBe('Bearer realm="lookup"');
  });
});
