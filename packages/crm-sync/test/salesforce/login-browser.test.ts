// `service-crm login` in a real browser: the command opens its one-time local link through BROWSER
// (the code path that opens a browser for a person), which redirects headless Chromium (Debian's)
// to the authorize URL; the emulator shows its login form and "Allow Access?" page, and the
// loopback callback answers with a page saying what happened. Allow: the code is exchanged with
// PKCE, tokens are stored 0600, and a second command runs without a prompt. Deny ends with a
// clear message; a callback with a wrong state is answered and ignored.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { requires, runCli } from '@service/test-support';
import { ensureChromium, launchChromium } from '@service/test-support/chromium';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';
import { useEmulator } from './helpers.js';

const missing = await ensureChromium();
// `service-crm login` is a public PKCE client: its connected app does not require the secret.
const env = useEmulator({ requireSecret: false });
const outDir = join(packageDir, 'node_modules/.cache/service-crm-login-test');
let cli = '';
let browser: Awaited<ReturnType<typeof launchChromium>> | undefined;

// What BROWSER hands over: each URL the command asked a browser to open.
const handed: string[] = [];
const waiting: ((url: string) => void)[] = [];
const handoff = createServer((req, res) => {
  let body = '';
  req.on('data', (d) => {
    body += d;
  });
  req.on('end', () => {
    res.end();
    const next = waiting.shift();
    if (next) next(body);
    else handed.push(body);
  });
});
const nextOpenedUrl = () =>
  new Promise<string>((resolve) => {
    const url = handed.shift();
    if (url) resolve(url);
    else waiting.push(resolve);
  });

beforeAll(async () => {
  if (missing) return;
  cli = await buildCli(outDir);
  await new Promise<void>((resolve) => handoff.listen(0, '127.0.0.1', resolve));
  browser = await launchChromium();
}, 120_000);
afterAll(async () => {
  await browser?.close();
  handoff.close();
});

/** The command as a user's shell runs it, with BROWSER handing URLs to the test's Chromium. */
function start(home: string, args: string[]) {
  const port = (handoff.address() as AddressInfo).port;
  const handoffScript = join(import.meta.dirname, 'browser-handoff.mjs');
  // Standard input is closed at once: nothing can prompt.
  const done = runCli(cli, args, {
    env: {
      SERVICE_CRM_HOME: home,
      BROWSER: `${process.execPath} ${handoffScript} http://127.0.0.1:${port}/opened %s`,
    },
    cwd: home,
  });
  return { done };
}

function login(home: string) {
  const { emulator } = env;
  return start(home, [
    'login',
    '--client-id',
    emulator.clientId,
    '--login-url',
    emulator.url,
    '--port',
    '0',
  ]);
}

/** Waits for the page whose heading says `text` (the answer to the last click). */
const heading = (page: Page, text: string) => page.locator('h1', { hasText: text }).waitFor();

/**
 * Opens what the command handed to the browser; logs in on the form when Salesforce asks.
 * Returns the authorize URL the local link redirected to.
 */
async function openAndSignIn(page: Page): Promise<URL> {
  const { emulator } = env;
  const link = new URL(await nextOpenedUrl());
  expect(link.pathname).toBe('/start');
  const response = await page.goto(link.toString());
  const chain: string[] = [];
  for (let r = response?.request() ?? null; r; r = r.redirectedFrom()) chain.unshift(r.url());
  expect(chain[0]).toBe(link.toString());
  const url = new URL(chain[1] ?? '');
  expect(url.pathname).toBe('/services/oauth2/authorize');
  if (await page.locator('input[name="username"]').count()) {
    await page.fill('input[name="username"]', emulator.username);
    await page.fill('input[name="pw"]', emulator.password);
    await page.click('#Login');
  }
  await heading(page, 'Allow Access?');
  return url;
}

describe('service-crm login in headless Chromium', requires(missing), () => {
  it('signs in and allows: PKCE and state verified, tokens 0600, a second command runs without a prompt', async () => {
    const { emulator } = env;
    const home = await mkdtemp(join(tmpdir(), 'service-crm-login-'));
    const page = await (browser?.context.newPage() ?? Promise.reject(new Error('no browser')));
    const { done } = login(home);
    const authorize = await openAndSignIn(page);
    expect(authorize.searchParams.get('code_challenge')).toMatch(/^[\w-]{43}$/);

    const screenshots = await mkdtemp(join(tmpdir(), 'service-crm-consent-'));
    await page.screenshot({ path: join(screenshots, 'consent-page.png'), fullPage: true });
    console.log(`consent page screenshot: ${join(screenshots, 'consent-page.png')}`);

    await page.click('#oaapprove');
    await heading(page, 'Connected to Salesforce');
    const shown = await page.content();
    expect(shown).toContain(`org ${emulator.org.orgId} as ${emulator.username}`);
    await page.screenshot({ path: join(screenshots, 'callback-page.png') });
    console.log(`callback page screenshot: ${join(screenshots, 'callback-page.png')}`);
    const callback = new URL(page.url());
    expect(callback.pathname).toBe('/OauthRedirect');
    expect(callback.searchParams.get('state')).toBe(authorize.searchParams.get('state'));

    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toMatch(new RegExp(`Connected to org ${emulator.org.orgId}`));

    // The org saw the verifier whose S256 hash is the challenge the browser carried.
    const exchange = emulator.requests.find(
      (r) =>
        r.path === '/services/oauth2/token' &&
        new URLSearchParams(r.body).get('code') === callback.searchParams.get('code'),
    );
    expect(exchange?.status).toBe(200);
    const verifier = new URLSearchParams(exchange?.body).get('code_verifier') ?? '';
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(
      authorize.searchParams.get('code_challenge'),
    );

    const tokenFile = join(home, 'tokens.json');
    expect((await stat(tokenFile)).mode & 0o777).toBe(0o600);
    const tokens = JSON.parse(await readFile(tokenFile, 'utf8'));
    expect(tokens.refreshToken).toBeTruthy();
    for (const secret of [tokens.accessToken, tokens.refreshToken]) {
      expect(shown).not.toContain(secret);
      expect(result.stdout + result.stderr).not.toContain(secret);
    }

    const opened = handed.length + waiting.length;
    const plan = await start(home, ['fields', 'plan']).done;
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toMatch(/61 fields to upsert/);
    expect(plan.stderr).toBe('');
    expect(handed.length + waiting.length).toBe(opened); // no browser opened again
    await page.close();
  }, 120_000);

  it('ends with a clear message and saves nothing when the user chooses Deny', async () => {
    const home = await mkdtemp(join(tmpdir(), 'service-crm-login-'));
    const page = await (browser?.context.newPage() ?? Promise.reject(new Error('no browser')));
    const { done } = login(home);
    await openAndSignIn(page);
    await page.click('#oadeny');
    await heading(page, 'Access refused');

    const result = await done;
    expect(result.code).toBe(3);
    expect(result.stderr).toMatch(/Login refused: you chose Deny .* choose Allow to connect/);
    expect(result.stderr.trim().split('\n').at(-1)).toMatch(/^service-crm: Login refused/);
    await expect(stat(join(home, 'tokens.json'))).rejects.toThrow(/ENOENT/);
    await page.close();
  }, 120_000);

  it('answers a callback with a state the login did not send, ignores it, and still connects', async () => {
    const { emulator } = env;
    const home = await mkdtemp(join(tmpdir(), 'service-crm-login-'));
    const page = await (browser?.context.newPage() ?? Promise.reject(new Error('no browser')));
    const { done } = login(home);
    const authorize = await openAndSignIn(page);
    // A stale tab or a forged link: a code with another login's state reaches the callback.
    const forged = await emulator.approve(
      authorize.toString().replace(/state=[^&]+/, 'state=another-login'),
    );
    const tokenCalls = emulator.count('POST', '/services/oauth2/token');
    const other = await (browser?.context.newPage() ?? Promise.reject(new Error('no browser')));
    const answer = await other.goto(forged.toString());
    expect(answer?.status()).toBe(400);
    await heading(other, 'Login not completed');
    expect(emulator.count('POST', '/services/oauth2/token')).toBe(tokenCalls); // code not used

    await page.click('#oaapprove');
    await heading(page, 'Connected to Salesforce');
    const result = await done;
    expect(result.code, result.stderr).toBe(0);
    expect((await stat(join(home, 'tokens.json'))).mode & 0o777).toBe(0o600);
    await other.close();
    await page.close();
  }, 120_000);
});
