// `service-lookup serve --cache-mb`: a size in megabytes, 0 turning the cache off; anything else is
// a usage error before any store is opened.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { cliFromSource, PACKAGE } from './support/cli.js';
import { KEY } from './support/events.js';
import { lookup, serve } from './support/serve.js';

function run(args: string[]) {
  const child = spawn(process.execPath, [...cliFromSource(), ...args], {
    cwd: PACKAGE,
    env: { ...process.env, SERVICE_SECRET_KEYS: '', DATABASE_URL: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d) => (stdout += d));
  child.stderr?.on('data', (d) => (stderr += d));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.on('close', (code) => resolve({ code, stdout, stderr })),
  );
}

describe('serve --cache-mb', () => {
  it.each(['lots', '-1', '1e3', ''])('--cache-mb "%s" is a usage error', async (value) => {
    const { code, stderr } = await run(['serve', '--key', KEY, `--cache-mb=${value}`]);
    expect(code).toBe(2);
    expect(stderr).toContain(`--cache-mb must be a number of megabytes, got "${value}"`);
    expect(stderr).not.toMatch(/\n\s+at /);
  });

  it('is in --help', async () => {
    expect((await run(['--help'])).stdout).toMatch(/--cache-mb MB +memory for cached answers/);
  });

  it('serves with the cache off (0) and with a size', async () => {
    for (const size of ['0', '0.5']) {
      const served = await serve(['--key', KEY, '--cache-mb', size]);
      try {
        for (let i = 0; i < 2; i++)
          expect((await lookup(served.origin, KEY, { domain: 'nobody.example' })).status).toBe(404);
      } finally {
        expect(await served.stop()).toBe(0);
      }
    }
  }, 60_000);
});
