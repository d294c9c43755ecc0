/** Construction, what a request looks like on the wire, and the two response shapes (real HTTP). */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  ConfigurationError,
  LookupClient,
  type LookupClientOptions,
  type LookupQuery,
  VERSION,
} from '../src/index.js';
import { KEY, lookupBody, lookupBodyWithActivity } from './support/fixtures.js';
import { sendJson, startServer, type TestServer } from './support/http-server.js';

const baseUrl = 'https://lookup.example.com';

afterEach(() => {
  vi.unstubAllGlobals();
  vi.unstubAllEnvs();
});

function constructionError(options: LookupClientOptions): unknown {
  try {
    new LookupClient(options);
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('construction', () => {
  it('reads the key from SERVICE_SECRET_KEY when none is passed, and sends that key', async () => {
    vi.stubEnv('SERVICE_SECRET_KEY', KEY);
    const sent: Headers[] = [];
    const client = new LookupClient({
      baseUrl,
      keyTransport: 'bearer',
      fetch: async (_url, init) => {
        sent.push(new Headers(init.headers));
        return Response.json(lookupBody);
      },
    });
    await client.lookup({ domain: 'acme.com' });
    expect(sent.map((headers) => headers.get('authorization'))).toEqual([`Bearer ${KEY}`]);
  });

  it('refuses a missing key before any request', () => {
    vi.stubEnv('SERVICE_SECRET_KEY', undefined);
    const error = constructionError({ baseUrl });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect(error).toMatchObject({ name: 'ConfigurationError', code: 'configuration_error' });
    expect((error as Error).message).toContain('SERVICE_SECRET_KEY');
  });

  it('says an unset key and an unset base URL are not set, and where each comes from', () => {
    vi.stubEnv('SERVICE_SECRET_KEY', undefined);
    vi.stubEnv('SERVICE_BASE_URL', undefined);
    expect((constructionError({ baseUrl }) as Error).message).toBe(
      'secretKey is not set: pass it, or set SERVICE_SECRET_KEY in the environment.',
    );
    expect((constructionError({ secretKey: KEY }) as Error).message).toMatch(
      /^baseUrl is not set: pass it, or set SERVICE_BASE_URL in the environment \(a local server: `npx service-lookup serve`/,
    );
  });

  it.each(['pk_live_abc123', 'sk_test_abc123', ' sk_live_abc123', 'sk_live_'])(
    'refuses %j, without echoing it',
    (secretKey) => {
      const error = constructionError({ secretKey, baseUrl });
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toContain('sk_live_');
      expect((error as Error).message).not.toContain('abc123');
    },
  );

  it.each([
    [{ baseUrl: 'lookup.example.com' }, 'baseUrl'],
    [{ baseUrl: 'ftp://lookup.example.com' }, 'baseUrl'],
    [{ baseUrl, timeout: 0 }, 'timeout'],
    [{ baseUrl, timeout: Number.NaN }, 'timeout'],
    [{ baseUrl, maxRetries: -1 }, 'maxRetries'],
    [{ baseUrl, maxRetries: 1.5 }, 'maxRetries'],
    [{ baseUrl, keyTransport: 'query' as never }, 'keyTransport'],
  ])('refuses %j', (options, named) => {
    const error = constructionError({ secretKey: KEY, ...options });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain(named);
  });
});

describe('in a browser', () => {
  function pretendBrowser() {
    vi.stubGlobal('window', {});
    vi.stubGlobal('document', {});
  }

  it('refuses to run with a secret key', () => {
    pretendBrowser();
    const error = constructionError({ secretKey: KEY, baseUrl });
    expect(error).toBeInstanceOf(ConfigurationError);
    expect((error as Error).message).toContain('dangerouslyAllowBrowser');
  });

  it('runs when dangerouslyAllowBrowser is true', () => {
    pretendBrowser();
    expect(
      () => new LookupClient({ secretKey: KEY, baseUrl, dangerouslyAllowBrowser: true }),
    ).not.toThrow();
  });

  it('a worker (no document) is not a browser', () => {
    vi.stubGlobal('window', {});
    expect(() => new LookupClient({ secretKey: KEY, baseUrl })).not.toThrow();
  });
});

describe('on the wire', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer((request, response) => {
      if (request.body.email === 'slow@acme.com') return; // never answers
      sendJson(response, 200, request.body.includeActivity ? lookupBodyWithActivity : lookupBody);
    });
  });
  afterAll(() => server.close());

  it('POSTs JSON to {baseUrl}/api/service/lookup with the version headers', async () => {
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: `${server.baseUrl}/gateway`,
      headers: { 'x-tenant': 'acme', 'x-service-client': 'spoofed' },
    });
    await client.lookup({ domain: 'acme.com' });
    const request = server.requests.at(-1);
    const { version } = JSON.parse(
      readFileSync(new URL('../package.json', import.meta.url), 'utf8'),
    );
    expect(VERSION).toBe(version);
    expect(request).toMatchObject({
      method: 'POST',
      url: '/gateway/api/service/lookup',
      body: { domain: 'acme.com', includeActivity: false },
      headers: {
        'content-type': 'application/json',
        accept: 'application/json',
        'user-agent': `@service/lookup-client/${version}`,
        'x-service-client': `@service/lookup-client/${version}`,
        'x-tenant': 'acme',
      },
    });
  });

  it('a header given in any case replaces the default of that name', async () => {
    const client = new LookupClient({
      secretKey: KEY,
      baseUrl: server.baseUrl,
      headers: { 'Content-Type': 'application/json; charset=utf-8', 'User-Agent': 'acme-app/1.0' },
    });
    await client.lookup({ domain: 'acme.com' });
    expect(server.requests.at(-1)?.headers).toMatchObject({
      'content-type': 'application/json; charset=utf-8',
      'user-agent': 'acme-app/1.0',
    });
  });

  it('rejects a per-call timeout that cannot work with ConfigurationError, sending nothing', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    const sent = server.requests.length;
    await expect(client.lookup({ domain: 'acme.com' }, { timeout: -1 })).rejects.toBeInstanceOf(
      ConfigurationError,
    );
    expect(server.requests).toHaveLength(sent);
  });

  it('sends both email and domain when given (the server prefers the email)', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    await client.lookup({ email: 'ada@acme.com', domain: 'acme.com' });
    expect(server.requests.at(-1)?.body).toMatchObject({
      email: 'ada@acme.com',
      domain: 'acme.com',
    });
  });

  it('returns contacts with activity only when asked', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    const plain = await client.lookup({ domain: 'acme.com' });
    expect(plain).toEqual(lookupBody);
    const detailed = await client.lookup({ domain: 'acme.com' }, { includeActivity: true });
    expect(server.requests.at(-1)?.body).toMatchObject({ includeActivity: true });
    expect(detailed.contacts[0]?.site_activity).toEqual(
      lookupBodyWithActivity.contacts[0]?.site_activity,
    );
  });

  it('sends includeActivity written in the query, where the wire body has it, and returns the activity', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    const detailed = await client.lookup({ domain: 'acme.com', includeActivity: true });
    expect(server.requests.at(-1)?.body).toEqual({ domain: 'acme.com', includeActivity: true });
    expect(detailed.contacts[0]?.site_activity).toEqual(
      lookupBodyWithActivity.contacts[0]?.site_activity,
    );
  });

  it.each([
    [{ includeActivity: true }, { includeActivity: false }, true],
    [{ includeActivity: false }, { includeActivity: true }, true],
    [{ includeActivity: false }, { includeActivity: false }, false],
    [{}, {}, false],
  ])(
    'with %j in the query and %j in the options, asks for activity: %s',
    async (inQuery, inOptions, sent) => {
      const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
      await client.lookup({ domain: 'acme.com', ...inQuery }, inOptions);
      expect(server.requests.at(-1)?.body).toMatchObject({ includeActivity: sent });
    },
  );

  it.each([
    ['timeout', 5_000],
    ['signal', new AbortController().signal],
    ['secretKey', KEY],
    ['include_activity', true],
  ])(
    'refuses %s in the query with ConfigurationError naming where it goes, sending nothing',
    async (key, value) => {
      const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
      const sent = server.requests.length;
      const query = { domain: 'acme.com', [key]: value } as LookupQuery;
      const error = await client.lookup(query).catch((reason: unknown) => reason);
      expect(error).toBeInstanceOf(ConfigurationError);
      expect((error as Error).message).toBe(
        `A lookup query takes email, domain and includeActivity, not ${key}: options go in ` +
          "lookup()'s second argument.",
      );
      expect((error as Error).message).not.toContain(KEY);
      expect(server.requests).toHaveLength(sent);
    },
  );

  it("an abort rejects with the caller's own reason, as fetch does", async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    const controller = new AbortController();
    const pending = client.lookup({ email: 'slow@acme.com' }, { signal: controller.signal });
    const reason = new DOMException('The user left', 'AbortError');
    setTimeout(() => controller.abort(reason), 20);
    await expect(pending).rejects.toBe(reason);
  });

  it('an AbortSignal.timeout bounds the whole call, rejecting with its TimeoutError DOMException', async () => {
    const client = new LookupClient({ secretKey: KEY, baseUrl: server.baseUrl });
    const pending = client.lookup({ email: 'slow@acme.com' }, { signal: AbortSignal.timeout(30) });
    await expect(pending).rejects.toMatchObject({
      name: 'TimeoutError',
      constructor: DOMException,
    });
  });
});
