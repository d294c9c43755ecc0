// `service-crm login` against other programs on the same machine, over loopback HTTP: what the
// browser opener is given (every user sees it in `ps`), which addresses the callback holds, and
// which callbacks it takes. The login host is the emulator behind a gate that can hold the code
// exchange or answer it as a hostile host would.
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtemp, stat } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createTcpServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';
import { finish } from './cli-process.js';
import { useEmulator } from './helpers.js';

// `service-crm login` is a public PKCE client: its connected app does not require the secret.
const env = useEmulator({ requireSecret: false });
let cli = '';

interface Answer {
  readonly status: number;
  readonly body: string;
}
/** How the gate answers a code exchange, given the way to forward it (default: forwards it). */
let tokenAnswer: ((forward: () => Promise<Answer>) => Promise<Answer>) | undefined;
let opened: ((url: string) => void) | undefined;
const servers: Server[] = [];
/** Logins still running when a test ends (it failed before they did) are stopped. */
const running = new Set<ChildProcess>();

/** The login host the command talks to: the emulator's token endpoint behind the gate. */
const gate = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', async () => {
    const forward = async (): Promise<Answer> => {
      const answer = await fetch(`${env.emulator.url}${req.url}`, {
        method: req.method ?? 'GET',
        headers: { 'content-type': req.headers['content-type'] ?? 'text/plain' },
        ...(req.method === 'POST' ? { body } : {}),
      });
      return { status: answer.status, body: await answer.text() };
    };
    const answer = await (tokenAnswer ? tokenAnswer(forward) : forward());
    res.writeHead(answer.status, { 'content-type': 'application/json' }).end(answer.body);
  });
});
/** BROWSER's stand-in: receives each URL the command asked a browser to open. */
const handoff = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    res.end();
    opened?.(body);
  });
});

const listen = (server: Server, host: string) =>
  new Promise<number>((resolve) => {
    servers.push(server);
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port));
  });

beforeAll(async () => {
  cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-login-callbacks'));
  await listen(gate, '127.0.0.1');
  await listen(handoff, '127.0.0.1');
}, 120_000);
afterAll(() => {
  for (const server of servers) server.close();
});
afterEach(() => {
  for (const child of running) child.kill();
  running.clear();
});

interface Login {
  readonly child: ChildProcess;
  readonly home: string;
  /** The URL the browser opener was given. */
  readonly link: Promise<URL>;
  readonly done: ReturnType<typeof finish>;
}

async function startLogin(port = 0): Promise<Login> {
  const home = await mkdtemp(join(tmpdir(), 'service-crm-login-'));
  const link = new Promise<URL>((resolve) => {
    opened = (url) => resolve(new URL(url));
  });
  const gatePort = (gate.address() as AddressInfo).port;
  const handoffPort = (handoff.address() as AddressInfo).port;
  const script = join(import.meta.dirname, 'browser-handoff.mjs');
  const child = spawn(
    process.execPath,
    [
      cli,
      'login',
      '--client-id',
      env.emulator.clientId,
      '--login-url',
      `http://127.0.0.1:${gatePort}`,
      '--port',
      String(port),
    ],
    {
      env: {
        PATH: process.env.PATH ?? '',
        SERVICE_CRM_HOME: home,
        BROWSER: `${process.execPath} ${script} http://127.0.0.1:${handoffPort}/opened %s`,
      },
      cwd: home,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  running.add(child);
  child.on('exit', () => running.delete(child));
  return { child, home, link, done: finish(child) };
}

/** What the browser does with the link: follows it to the authorize URL. */
async function authorizeUrl(link: URL): Promise<URL> {
  const answer = await fetch(link, { redirect: 'manual' });
  expect(answer.status).toBe(302);
  return new URL(answer.headers.get('location') ?? '');
}

/** The user allows the app on the emulator's pages: the callback URL with a fresh code. */
function allow(authorize: URL): Promise<URL> {
  const atEmulator = new URL(authorize.pathname + authorize.search, env.emulator.url);
  return env.emulator.approve(atEmulator.toString());
}

/** The callback, sent to one of the addresses `localhost` stands for. */
function callback(at: URL, host = '127.0.0.1', query = at.search): Promise<Response> {
  return fetch(`http://${host}:${at.port}${at.pathname}${query}`);
}

const tokenFileOf = (login: Login) => join(login.home, 'tokens.json');

describe('service-crm login among other local programs', () => {
  it('gives the browser opener a one-time local link, never the authorize URL, its state or its challenge', async () => {
    const login = await startLogin();
    const link = await login.link;
    expect(link.origin).toMatch(/^http:\/\/localhost:\d+$/);
    expect(link.pathname).toBe('/start');
    expect([...link.searchParams.keys()]).toEqual(['t']);
    expect(link.searchParams.get('t')).toMatch(/^[\w-]{43}$/);

    const authorize = await authorizeUrl(link);
    expect(authorize.pathname).toBe('/services/oauth2/authorize');
    expect(authorize.searchParams.get('state')).toBeTruthy();
    expect(authorize.searchParams.get('code_challenge')).toBeTruthy();
    expect(link.toString()).not.toContain(authorize.searchParams.get('state'));

    // Opened twice, the authorize URL may be in two hands: the login stops, taking no code.
    const tokenCalls = env.emulator.count('POST', '/services/oauth2/token');
    const again = await fetch(link, { redirect: 'manual' });
    expect(again.status).toBe(410);
    const result = await login.done;
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/one-time link was opened twice/);
    expect(env.emulator.count('POST', '/services/oauth2/token')).toBe(tokenCalls);
    await expect(stat(tokenFileOf(login))).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it('answers callbacks without its state with 400 and ignores them, then takes its own, on ::1 as on 127.0.0.1', async () => {
    const login = await startLogin();
    const authorize = await authorizeUrl(await login.link);
    const own = await allow(authorize);
    const tokenCalls = env.emulator.count('POST', '/services/oauth2/token');

    // What any web page can make a browser send (an <img> pointing at the callback).
    const forged = await callback(own, '127.0.0.1', '?code=forged&state=another-login');
    expect(forged.status).toBe(400);
    expect(await forged.text()).toMatch(/its state differs/);
    expect((await callback(own, '127.0.0.1', '?code=forged')).status).toBe(400);
    expect((await callback(own, '127.0.0.1', '?error=access_denied')).status).toBe(400);
    // `localhost` may be ::1 to the browser: the login holds that address too.
    expect((await callback(own, '[::1]', '?code=forged&state=x')).status).toBe(400);
    expect(env.emulator.count('POST', '/services/oauth2/token')).toBe(tokenCalls);

    const taken = await callback(own, '[::1]');
    expect(taken.status).toBe(200);
    const result = await login.done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`Connected to org ${env.emulator.org.orgId}`));
    expect((await stat(tokenFileOf(login))).mode & 0o777).toBe(0o600);
  }, 60_000);

  it('takes one code at most: a callback after the first is refused with 409 and not exchanged', async () => {
    const login = await startLogin();
    const authorize = await authorizeUrl(await login.link);
    const first = await allow(authorize);
    const second = await allow(authorize);
    // The first exchange is held at the login host until the second callback is answered.
    let release!: () => void;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let exchanges = 0;
    let exchangeStarted!: () => void;
    const started = new Promise<void>((resolve) => {
      exchangeStarted = resolve;
    });
    tokenAnswer = async (forward) => {
      exchanges += 1;
      exchangeStarted();
      await released;
      return forward();
    };
    try {
      const taken = callback(first);
      await started;
      const refused = await callback(second);
      expect(refused.status).toBe(409);
      expect(await refused.text()).toMatch(/Login already answered/);
      release();
      expect((await taken).status).toBe(200);
      const result = await login.done;
      expect(result.code, result.stderr).toBe(0);
      expect(exchanges).toBe(1);
    } finally {
      tokenAnswer = undefined;
    }
  }, 60_000);

  it('prints a login host error without its escape sequences or control characters, and bounded', async () => {
    const hostile = `\u001b]0;owned\u0007\u001b[2J\u001b[31mbad\r\nservice-crm: Connected${'x'.repeat(5000)}`;
    const login = await startLogin();
    const authorize = await authorizeUrl(await login.link);
    const own = await allow(authorize);
    const query = new URLSearchParams({
      state: own.searchParams.get('state') ?? '',
      error: `server_error${hostile}`,
      error_description: hostile,
    });
    expect((await callback(own, '127.0.0.1', `?${query}`)).status).toBe(400);
    const result = await login.done;
    expect(result.code).toBe(3);
    const message = result.stderr.trim().split('\n').at(-1) ?? '';
    expect(message).toMatch(/^service-crm: Salesforce refused the login: server_error/);
    expectPrintable(result.stderr, message);
  }, 60_000);

  it('prints a code exchange error without its escape sequences or control characters, and bounded', async () => {
    const hostile = `\u001b[2J\u001b[31mbad\r\nservice-crm: Connected${'x'.repeat(5000)}`;
    // An OAuth error answer (RFC 6749 section 5.2): `error` and `error_description`.
    tokenAnswer = async () => ({
      status: 400,
      body: JSON.stringify({ error: `invalid_grant${hostile}`, error_description: hostile }),
    });
    try {
      const login = await startLogin();
      const own = await allow(await authorizeUrl(await login.link));
      expect((await callback(own)).status).toBe(400);
      const result = await login.done;
      expect(result.code).toBe(3);
      const message = result.stderr.trim().split('\n').at(-1) ?? '';
      expect(message).toMatch(/^service-crm: The code exchange failed: invalid_grant/);
      expectPrintable(result.stderr, message);
    } finally {
      tokenAnswer = undefined;
    }
  }, 60_000);

  it('refuses to start when another program holds the port on one of the addresses of localhost', async () => {
    const squatter = createTcpServer();
    const port = await new Promise<number>((resolve) =>
      squatter.listen(0, '::1', () => resolve((squatter.address() as AddressInfo).port)),
    );
    try {
      const login = await startLogin(port);
      const result = await login.done;
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`Cannot listen on [::1]:${port}: another program holds it`);
    } finally {
      squatter.close();
    }
  }, 60_000);
});

/** Only printable text and line ends of our own, and the host's text cut short. */
function expectPrintable(stderr: string, message: string) {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is looked for
  expect(stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
  expect(stderr).not.toMatch(/^service-crm: Connected/m);
  expect(message.length).toBeLessThan(1000);
  expect(message).toMatch(/more characters/);
}
