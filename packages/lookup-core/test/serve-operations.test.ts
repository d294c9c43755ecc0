/**
 * Issue 14 item 6, through a real `service-lookup serve` process: it never prints a key, says which
 * store it opened (honouring DATABASE_URL, never showing a password), refuses a malformed URL as a
 * usage error, counts refused keys per address in one JSON line, and cuts off slow headers and
 * bodies at the configured timeouts (10 s each by default).
 */
import { execFile, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { promisify } from 'node:util';
import { createTestDatabase, requires } from '@service/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { cliFromSource, PACKAGE } from './support/cli.js';
import { baseEvents, KEY } from './support/events.js';
import { lookup, serve } from './support/serve.js';

const ENV_KEY = 'sk_live_from_environment_0123456789abcdef';

/** The JSON lines of a stream (other lines are the command's own messages). */
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

describe('serve prints no key', () => {
  it('its curl line reads the key from $SERVICE_SECRET_KEY, and pasted into a shell it works', async () => {
    const served = await serve(['--key', KEY], { SERVICE_SECRET_KEYS: `${ENV_KEY}=other` });
    const code = await served.stop();
    expect(code).toBe(0);
    const curl = served.stdout().match(/^try: (curl .*)$/m)?.[1] ?? '';
    expect(curl).toContain('-H "Authorization: Bearer $SERVICE_SECRET_KEY"');
    expect(served.stdout()).toMatch(/^store: embedded, in memory$/m);
    for (const key of [KEY, ENV_KEY]) expect(served.stdout() + served.stderr()).not.toContain(key);

    // The same line, as a person would paste it, against a server that is still running.
    const again = await serve(['--key', KEY]);
    try {
      const line = again.stdout().match(/^try: (curl .*)$/m)?.[1] ?? '';
      const { stdout } = await promisify(execFile)('sh', ['-c', `${line} -w ' %{http_code}'`], {
        env: { ...process.env, SERVICE_SECRET_KEY: KEY },
      });
      expect(stdout).toBe('{"error":"Not found"} 404'); // the key opened the (empty) store
    } finally {
      await again.stop();
    }
  }, 60_000);
});

describe('refused keys are logged in aggregate', () => {
  it('300 wrong keys from one address are one JSON line with their count, holding no key', async () => {
    const served = await serve(['--key', KEY]);
    const wrong = (i: number) => `sk_live_wrong_${String(i).padStart(4, '0')}_0123456789abcdef`;
    for (let i = 0; i < 300; i++) {
      const response = await lookup(served.origin, wrong(i), { domain: 'acme.com' });
      expect(response.status).toBe(401);
    }
    expect(await served.stop()).toBe(0); // a shutdown writes the minute's counts so far
    const lines = jsonLines(served.stderr());
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'warn',
        event: 'unauthorized',
        address: expect.stringMatching(/127\.0\.0\.1$/),
        count: 300,
      }),
    ]);
    expect(served.stderr()).not.toContain('sk_live_wrong');
  }, 60_000);
});

/** Runs the command to its end; DATABASE_URL and SERVICE_SECRET_KEYS only as given. */
const run = (args: string[], env: Record<string, string>) =>
  new Promise<{ code: number | null; stderr: string }>((resolve) => {
    const child = spawn(process.execPath, [...cliFromSource(), ...args], {
      cwd: PACKAGE,
      env: { ...process.env, SERVICE_SECRET_KEYS: '', DATABASE_URL: '', ...env },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolve({ code, stderr }));
  });

describe('usage errors for a database URL', () => {
  it.each<[string, string[], Record<string, string>, RegExp]>([
    [
      '--database-url "not a url"',
      ['--database-url', 'not a url'],
      {},
      /--database-url is not a URL/,
    ],
    ['an http URL', ['--database-url', 'http://db.example/x'], {}, /not a PostgreSQL URL/],
    ['DATABASE_URL "not a url"', [], { DATABASE_URL: 'not a url' }, /DATABASE_URL is not a URL/],
    [
      'a timeout that is no number of seconds',
      ['--header-timeout', 'soon'],
      {},
      /--header-timeout must be a number of seconds/,
    ],
    ['a zero body timeout', ['--body-timeout', '0'], {}, /--body-timeout must be a number/],
    [
      'a target_session_attrs libpq does not have',
      ['--database-url', 'postgres://u:pw@h1,h2/db?target_session_attrs=master'],
      {},
      /--database-url has target_session_attrs=master, not one of any, read-write, read-only, primary, standby, prefer-standby/,
    ],
    [
      '--read-replicas "not a url"',
      ['--database-url', 'postgres://u@h/db', '--read-replicas', 'not a url'],
      {},
      /--read-replicas is not a URL/,
    ],
    [
      '--max-replay-lag that is no number of seconds',
      ['--database-url', 'postgres://u@h/db', '--max-replay-lag', 'soon'],
      {},
      /--max-replay-lag must be a number of seconds, got "soon"/,
    ],
    [
      '--read-replicas on the embedded store',
      ['--read-replicas', 'postgres://u@r/db'],
      {},
      /--read-replicas needs a PostgreSQL store \(--database-url or DATABASE_URL\)/,
    ],
  ])('%s: exit 2, one clear line', async (_, args, env, message) => {
    const result = await run(['serve', '--key', KEY, ...args], env);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(message);
    expect(result.stderr).not.toMatch(/ENOTFOUND|\n\s+at /);
  });
});

const database = await createTestDatabase();

describe('DATABASE_URL', requires(database.missing), () => {
  beforeAll(async () => {
    const store = await openPostgresStore({ connectionString: database.url });
    await store.ingest(baseEvents());
    await store.close();
  });
  afterAll(() => database.drop());

  it('is honoured when --database-url is not given; serve names the store without its password', async () => {
    const withPassword = new URL(database.url);
    withPassword.password = 'hunter2-never-shown'; // trust auth ignores it
    const served = await serve(['--key', KEY], { DATABASE_URL: withPassword.toString() });
    try {
      const response = await lookup(served.origin, KEY, { domain: 'acme.com' });
      expect(response.status).toBe(200);
      const shown = `postgres://${withPassword.username}@${withPassword.host}${withPassword.pathname}`;
      expect(served.stdout()).toContain(`store: PostgreSQL at ${shown}, from DATABASE_URL`);
    } finally {
      expect(await served.stop()).toBe(0);
    }
    expect(served.stdout() + served.stderr()).not.toContain('hunter2');
  }, 60_000);

  it('naming a missing database, is a runtime failure that names the store and its source', async () => {
    const missing = new URL(database.url);
    missing.pathname = '/lookup_core_test_does_not_exist';
    missing.password = 'hunter2-never-shown';
    const result = await run(['serve', '--port', '0', '--key', KEY], {
      DATABASE_URL: missing.toString(),
    });
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `service-lookup: cannot open the store (PostgreSQL at postgres://${missing.username}@${missing.host}/lookup_core_test_does_not_exist, from DATABASE_URL): The lookup store is unavailable: database "lookup_core_test_does_not_exist" does not exist (create it first, e.g. with createdb)`,
    ]);
  }, 30_000);

  it('gives way to --data-dir, a flag naming the store', async () => {
    const served = await serve(
      ['--key', KEY, '--data-dir', `${PACKAGE}/.data-dir-${process.pid}`],
      {
        DATABASE_URL: database.url,
      },
    );
    try {
      expect(served.stdout()).toMatch(/^store: embedded, in .*\.data-dir-/m);
      expect((await lookup(served.origin, KEY, { domain: 'acme.com' })).status).toBe(404);
    } finally {
      await served.stop();
      const { rm } = await import('node:fs/promises');
      await rm(`${PACKAGE}/.data-dir-${process.pid}`, { recursive: true, force: true });
    }
  }, 60_000);
});

/**
 * Sends `head` and resolves with what the server answers before it closes the connection; rejects
 * when it has not closed within `withinMs` (a bound far above the timeout under test, so a busy
 * machine does not fail it, and below the 30 s node allowed before).
 */
function answerToPartial(origin: string, head: string, withinMs: number): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.write(head));
    const late = setTimeout(() => {
      socket.destroy();
      reject(new Error(`the connection was still open after ${withinMs} ms`));
    }, withinMs);
    socket.on('close', () => clearTimeout(late));
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (d) => (answer += d));
    socket.on('close', () => resolve(answer));
    socket.on('error', reject);
  });
}

describe('timeouts', () => {
  const partialHeaders = 'POST /api/service/lookup HTTP/1.1\r\nHost: x\r\nContent-Type: appl';
  const partialBody = `POST /api/service/lookup HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"domain":`;

  it('by default, headers still incomplete after 10 s get 408 (they used to get 30 s)', async () => {
    const served = await serve(['--key', KEY]);
    try {
      expect(await answerToPartial(served.origin, partialHeaders, 22_000)).toMatch(
        /^HTTP\/1\.1 408 /,
      );
    } finally {
      await served.stop();
    }
  }, 60_000);

  it('--header-timeout and --body-timeout set them', async () => {
    const served = await serve(['--key', KEY, '--header-timeout', '1', '--body-timeout', '0.5']);
    try {
      expect(await answerToPartial(served.origin, partialHeaders, 8_000)).toMatch(
        /^HTTP\/1\.1 408 /,
      );
      const body = await answerToPartial(served.origin, partialBody, 8_000);
      expect(body).toMatch(/^HTTP\/1\.1 408 /);
      expect(body).toContain('{"error":"Request timeout"}');
    } finally {
      await served.stop();
    }
  }, 60_000);
});
