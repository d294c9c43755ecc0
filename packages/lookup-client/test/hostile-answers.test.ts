/**
 * Answers a hostile or broken server may give, against real node:http servers on loopback: a body
 * without end, JSON nested past any stack, the key echoed in disguise, and error text full of
 * terminal escapes. Every one ends as a `LookupError` with a `code`.
 */
import type { ServerResponse } from 'node:http';
import { inspect } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import {
  LookupClient,
  type LookupError,
  ResponseTooLargeError,
  ResponseValidationError,
  ServerError,
} from '../src/index.js';
import { failure } from './support/failure.js';
import { KEY, lookupBody } from './support/fixtures.js';
import { type Responder, sendJson, startServer, type TestServer } from './support/http-server.js';

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function clientFor(respond: Responder, options: object = {}) {
  server = await startServer(respond);
  return new LookupClient({
    secretKey: KEY,
    baseUrl: server.baseUrl,
    keyTransport: 'bearer',
    maxRetries: 0,
    ...options,
  });
}

/** Everything a logger could print of an error. */
function printed(error: LookupError): string {
  return [
    JSON.stringify(error),
    inspect(error, { depth: 20, showHidden: true }),
    error.stack,
    JSON.stringify(error.body),
    JSON.stringify([...(error.headers ?? [])]),
  ].join('\n');
}

const MIB = 1024 * 1024;

/** What the server saw of a body it streamed: bytes written, and whether all were. */
interface Streamed {
  written: number;
  finished: boolean;
}

/**
 * Streams `total` bytes of a JSON string in 64 KiB chunks, as fast as the client reads them;
 * resolves when the connection is closed or the body is sent, whichever comes first.
 */
function streamBody(response: ServerResponse, total: number, status = 200): Promise<Streamed> {
  const chunk = Buffer.alloc(64 * 1024, 'a');
  const streamed: Streamed = { written: 0, finished: false };
  response.writeHead(status, { 'content-type': 'application/json' });
  response.write('"');
  return new Promise((resolve) => {
    response.on('close', () => resolve(streamed));
    const more = () => {
      while (!response.destroyed && streamed.written < total) {
        streamed.written += chunk.length;
        if (!response.write(chunk)) return void response.once('drain', more);
      }
      if (!response.destroyed) response.end('"', () => (streamed.finished = true));
    };
    more();
  });
}

describe('maxResponseBytes', () => {
  it('a 1 GiB body is abandoned past the default 4 MiB: the server sees the connection closed early', async () => {
    let streamed: Promise<Streamed> | undefined;
    const client = await clientFor((_request, response) => {
      streamed = streamBody(response, 1024 * MIB);
    });
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error).toBeInstanceOf(ResponseTooLargeError);
    expect(error).toMatchObject({ code: 'response_too_large', status: 200, body: undefined });
    expect(error.message).toContain(String(4 * MIB));
    const seen = await (streamed as Promise<Streamed>);
    expect(seen.finished).toBe(false);
    expect(seen.written).toBeLessThan(1024 * MIB);
    expect(server?.requests).toHaveLength(1); // not retried: it would fail the same way
  });

  it('is a limit on the body read, whatever its status', async () => {
    const client = await clientFor((_request, response) => void streamBody(response, MIB, 503), {
      maxResponseBytes: 64 * 1024,
      maxRetries: 2,
    });
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error).toMatchObject({ code: 'response_too_large', status: 503 });
    expect(server?.requests).toHaveLength(1);
  });

  it('takes a body of exactly the limit, and refuses one byte more', async () => {
    const size = Buffer.byteLength(JSON.stringify(lookupBody));
    const answer: Responder = (_request, response) => sendJson(response, 200, lookupBody);
    const exact = await clientFor(answer, { maxResponseBytes: size });
    await expect(exact.lookup({ domain: 'acme.com' })).resolves.toEqual(lookupBody);
    await server?.close();
    const under = await clientFor(answer, { maxResponseBytes: size - 1 });
    expect((await failure(under.lookup({ domain: 'acme.com' }))).code).toBe('response_too_large');
  });

  it.each([0, -1, 1.5, Number.NaN])('%s is a ConfigurationError', (maxResponseBytes) => {
    expect(
      () => new LookupClient({ secretKey: KEY, baseUrl: 'https://x.example', maxResponseBytes }),
    ).toThrow(expect.objectContaining({ code: 'configuration_error' }));
  });
});

describe('error text in messages', () => {
  it('the server’s error text is cut to 200 characters with control characters made spaces', async () => {
    const text = `\u001b[31mred\u001b[0m\r\nforged line\u0007${'y'.repeat(MIB)}`;
    const client = await clientFor((_request, response) =>
      sendJson(response, 500, { error: text }),
    );
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.message).toMatch(/^Lookup failed: 500 {2}\[31mred \[0m forged line y+$/);
    expect(error.message.length).toBe('Lookup failed: 500 '.length + 200);
  });

  it('so is a body that is not JSON', async () => {
    const client = await clientFor((_request, response) => {
      response.writeHead(502, { 'content-type': 'text/plain' });
      response.end(`bad\u0000gateway\u009b2J${'z'.repeat(10_000)}`);
    });
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error.message).toMatch(/^Lookup failed: 502 bad gateway 2Jz+$/);
    expect(error.message.length).toBeLessThanOrEqual('Lookup failed: 502 '.length + 200);
  });
});

describe('deeply nested JSON', () => {
  const deep = (levels: number) => `${'['.repeat(levels)}${']'.repeat(levels)}`;

  it('a success nested 100,000 deep is a ResponseValidationError', async () => {
    const client = await clientFor((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(`{"company":${deep(100_000)},"contacts":[]}`);
    });
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.code).toBe('response_validation_error');
    expect(() => printed(error)).not.toThrow();
  });

  it('an error answer nested 100,000 deep keeps its status and class, its body as text', async () => {
    const body = `{"error":"Overloaded","trace":${deep(100_000)}}`;
    const client = await clientFor((_request, response) => {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(body);
    });
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error).toBeInstanceOf(ServerError);
    expect(error.body).toBe(body);
    expect(() => printed(error)).not.toThrow();
  });

  it('nesting 64 deep is still JSON, brackets inside strings not counted', async () => {
    const body = { error: '[[[[{{{{'.repeat(100), trace: JSON.parse(deep(63)) };
    const client = await clientFor((_request, response) => sendJson(response, 500, body));
    expect((await failure(client.lookup({ domain: 'acme.com' }))).body).toEqual(body);
  });
});

describe('the key echoed in disguise', () => {
  const tail = KEY.slice('sk_live_'.length);
  const base64 = (text: string) => Buffer.from(text).toString('base64');
  // Each echo, and the pieces of it that would give the key away.
  const echoes: [string, string, string[]][] = [
    ['upper case', KEY.toUpperCase(), [tail.toUpperCase()]],
    ['percent-encoded', KEY.replaceAll('_', '%5F'), [tail.replace('_', '%5F')]],
    ['lower-case percent-encoded', KEY.replaceAll('_', '%5f'), [tail.replace('_', '%5f')]],
    ['split by a space', `${KEY.slice(0, 15)} ${KEY.slice(15)}`, [KEY.slice(15)]],
    ['split by a line break', `${KEY.slice(0, 11)}\n${KEY.slice(11)}`, [KEY.slice(11)]],
    ['without its prefix', `token=${tail}`, [tail]],
    ['in base64', base64(KEY), [base64(KEY).slice(11)]],
    ['in a Basic credential', `Basic ${base64(`ada:${KEY}`)}`, [base64(`ada:${KEY}`).slice(14)]],
    ['in base64 after one byte', base64(`x${KEY}`), [base64(`x${KEY}`).slice(12)]],
    ['in base64url', base64(`??${KEY}`).replaceAll('/', '_').replaceAll('+', '-'), []],
  ];
  const leaks = (echo: string, pieces: string[]) => [echo, ...pieces.map((p) => p.slice(0, 8))];

  it.each(echoes)(
    '%s, in the error text, a body field and a header',
    async (_label, echo, pieces) => {
      const client = await clientFor((_request, response) =>
        sendJson(
          response,
          403,
          { error: `refused ${echo}`, echo },
          { 'x-echo': echo.replace('\n', ' ') },
        ),
      );
      const error = await failure(client.lookup({ domain: 'acme.com' }));
      expect(error.code).toBe('api_error');
      const shown = printed(error);
      for (const leak of leaks(echo, pieces)) expect(shown).not.toContain(leak);
      expect(error.message).toContain('[redacted]');
      expect(error.headers?.get('x-echo')).toContain('[redacted]');
    },
  );

  it('as a name in the body, and in a success body that breaks the contract', async () => {
    const client = await clientFor((_request, response) =>
      sendJson(response, 200, { company: { [KEY.toUpperCase()]: base64(KEY) }, contacts: [] }),
    );
    const error = await failure(client.lookup({ domain: 'acme.com' }));
    expect(error.code).toBe('response_validation_error');
    const shown = printed(error) + JSON.stringify((error as ResponseValidationError).issues);
    expect(shown).not.toContain(tail.toUpperCase());
    expect(shown).not.toContain(base64(KEY).slice(11, 19));
  });
});
