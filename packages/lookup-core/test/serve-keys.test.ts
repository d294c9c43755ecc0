/**
 * Where `service-lookup serve` takes its keys from without showing them to other local users: the
 * environment, or a file only its owner may read. `--key` still works (tests use it) but warns.
 * Real `serve` processes on loopback.
 */
import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from './support/cli.js';
import { baseEvents, KEY } from './support/events.js';
import { lookup, serve } from './support/serve.js';

const OTHER_KEY = 'sk_live_from_keys_file_0123456789abcdef';
let dir: string;
let eventsFile: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'serve-keys-'));
  eventsFile = join(dir, 'events.ndjson');
  await writeFile(
    eventsFile,
    baseEvents()
      .map((e) => JSON.stringify(e))
      .join('\n'),
  );
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** A keys file with `mode`. */
async function keysFile(name: string, text: string, mode: number): Promise<string> {
  const path = join(dir, name);
  await writeFile(path, text);
  await chmod(path, mode);
  return path;
}

describe('serve keys', () => {
  it('reads KEY=WORKSPACE lines from a 0600 --keys-file, comments and blanks skipped', async () => {
    const path = await keysFile('keys', `# sample keys\n\n${KEY}\n${OTHER_KEY}=other\n`, 0o600);
    const served = await serve(['--keys-file', path, '--events', eventsFile]);
    try {
      expect((await lookup(served.origin, KEY, { domain: 'acme.com' })).status).toBe(200);
      // The second key reads its own (empty) workspace.
      expect((await lookup(served.origin, OTHER_KEY, { domain: 'acme.com' })).status).toBe(404);
    } finally {
      await served.stop();
    }
    expect(served.stderr()).not.toContain('warning');
    expect(served.stdout() + served.stderr()).not.toContain('sk_live_');
  }, 60_000);

  it.each([
    ['readable by group', 0o640, '0640'],
    ['readable by others', 0o604, '0604'],
    ['writable by group', 0o620, '0620'],
  ])(
    'refuses a keys file %s as a usage error naming the fix',
    async (_, mode, shown) => {
      const path = await keysFile(`keys-${shown}`, `${KEY}\n`, mode);
      const run = await runCli(['serve', '--port', '0', '--keys-file', path]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`(mode ${shown}); run chmod 600 ${path}`);
      expect(run.stderr).not.toContain(KEY);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    },
    30_000,
  );

  it('reads SERVICE_SECRET_KEYS without any key flag, and warns of none', async () => {
    const served = await serve([], { SERVICE_SECRET_KEYS: `${KEY},${OTHER_KEY}=other` });
    try {
      expect((await lookup(served.origin, OTHER_KEY, { domain: 'acme.com' })).status).toBe(404);
    } finally {
      await served.stop();
    }
    expect(served.stderr()).toBe('');
  }, 60_000);

  it("keeps a key's = padding whole, in SERVICE_SECRET_KEYS and in a keys file", async () => {
    const padded = `sk_live_${'a'.repeat(24)}+/==`;
    const filed = `sk_live_${'b'.repeat(24)}=`;
    const path = await keysFile('keys-padded', `${filed}=other\n`, 0o600);
    const served = await serve(['--keys-file', path, '--events', eventsFile], {
      SERVICE_SECRET_KEYS: padded,
    });
    try {
      expect((await lookup(served.origin, padded, { domain: 'acme.com' })).status).toBe(200);
      // `KEY==other` is the key's own `=`, then the separator; `other` has observed nothing.
      expect((await lookup(served.origin, filed, { domain: 'acme.com' })).status).toBe(404);
    } finally {
      await served.stop();
    }
  }, 60_000);

  it('--key still serves, with a warning on stderr that names the safe forms', async () => {
    const served = await serve(['--key', KEY]);
    try {
      expect((await lookup(served.origin, KEY, { domain: 'acme.com' })).status).toBe(404);
    } finally {
      await served.stop();
    }
    expect(served.stderr()).toContain(
      'warning: --key shows the key to every local user (ps); use SERVICE_SECRET_KEYS or --keys-file',
    );
    expect(served.stderr()).not.toContain(KEY);
  }, 60_000);
});
