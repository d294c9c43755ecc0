// The runtimes and tools of the matrix, each pinned and installed from the npm registry (where
// Bun, Deno and workerd ship their binaries) into a cache outside the repository, once per
// version. An install that fails throws: a runtime that cannot be installed fails the run.
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PINNED = {
  bun: '1.4.5',
  deno: '2.9.6',
  miniflare: '4.20260730.0',
  'edge-runtime': '4.0.1',
  'playwright-core': '1.65.1',
  esbuild: '0.28.2',
  typescript: '6.0.3',
};

export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const cache = join(
  process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'),
  'service-sdk',
  'ecosystem',
);

/**
 * The install folder of the pinned `name` (its `node_modules` holds it), installing it first when
 * missing; `installMs` is `null` when it came from the cache.
 */
export function tool(name) {
  const spec = `${name}@${PINNED[name]}`;
  const prefix = join(cache, spec);
  const marker = join(prefix, 'node_modules', name, 'package.json');
  if (existsSync(marker)) return { prefix, installMs: null };
  rmSync(prefix, { recursive: true, force: true });
  const started = performance.now();
  execFileSync(
    'npm',
    ['install', '--silent', '--no-audit', '--no-fund', '--prefix', prefix, spec],
    {
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  return { prefix, installMs: performance.now() - started };
}

/** The path of `bin` that the pinned package `name` installs. */
export const toolBin = (name, bin = name) => join(tool(name).prefix, 'node_modules', '.bin', bin);
