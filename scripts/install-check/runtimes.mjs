// The Node.js runtimes an installed package must work on: the one running this check, and the
// oldest the packages support (engines: >=22.12), installed once from the npm registry's
// node-<platform>-<arch> package into a cache outside the repository (pnpm would fetch a "node"
// dependency from nodejs.org instead).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const MINIMUM_NODE = '22.12.0';

/** `{ name, bin }` for each runtime to check, the current one first. */
export function nodeRuntimes() {
  const current = { name: `node ${process.versions.node}`, bin: process.execPath };
  if (process.versions.node === MINIMUM_NODE) return [current];
  return [current, { name: `node ${MINIMUM_NODE}`, bin: minimumNode() }];
}

function minimumNode() {
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  const prefix = join(cache, 'service-sdk', `node-${MINIMUM_NODE}`);
  const pkg = `node-${process.platform}-${process.arch}`;
  const bin = join(prefix, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(bin)) {
    execFileSync(
      'npm',
      [
        'install',
        '--silent',
        '--no-audit',
        '--no-fund',
        '--prefix',
        prefix,
        `${pkg}@${MINIMUM_NODE}`,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const version = execFileSync(bin, ['--version']).toString().trim();
  if (version !== `v${MINIMUM_NODE}`) throw new Error(`${bin} is ${version}, not v${MINIMUM_NODE}`);
  return bin;
}
