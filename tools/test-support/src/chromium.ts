// Debian's Chromium for the tests that do what a person does in a browser, driven by
// playwright-core (no browser download). Installed here when missing, as `.ci/run` does.
import { execFile } from 'node:child_process';
import { access, constants, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { type BrowserContext, chromium } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

const run = promisify(execFile);
const installed = () =>
  access(CHROMIUM, constants.X_OK).then(
    () => true,
    () => false,
  );

/** Installs Chromium when it is missing; returns why it is still missing, or undefined. */
export async function ensureChromium(): Promise<string | undefined> {
  if (await installed()) return undefined;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    await run('apt-get', ['update', '-qq'], { env });
    await run('apt-get', ['install', '-y', '-qq', 'chromium'], { env, timeout: 540_000 });
  } catch (error) {
    return `Chromium is not at ${CHROMIUM} and \`apt-get install -y chromium\` failed: ${(error as Error).message.split('\n')[0]}`;
  }
  return (await installed()) ? undefined : `Chromium is still not at ${CHROMIUM} after apt-get`;
}

/** A headless Chromium with a fresh profile; `close` removes the profile too. */
export async function launchChromium(): Promise<{
  context: BrowserContext;
  close: () => Promise<void>;
}> {
  const profile = await mkdtemp(join(tmpdir(), 'chromium-profile-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
  });
  return {
    context,
    close: async () => {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
