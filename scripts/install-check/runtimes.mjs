// The Node.js runtimes an installed package must work on: the one running this check, and the
// oldest each package supports (its engines.node, ">=22.12" -> 22.12.0), installed once from the
// npm registry's node-<platform>-<arch> package into a cache outside the repository (pnpm would
// fetch a "node" dependency from nodejs.org instead).
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The oldest Node.js version a manifest's `engines.node` (">=X.Y[.Z]") allows. */
export function minimumNode(manifest) {
  const match = /^>=\s*(\d+)\.(\d+)(?:\.(\d+))?$/.exec(manifest.engines?.node ?? '');
  if (!match)
    throw new Error(
      `${manifest.name}: engines.node must read ">=X.Y", not ${manifest.engines?.node}`,
    );
  return `${match[1]}.${match[2]}.${match[3] ?? 0}`;
}

/**
 * `{ name, bin, packages }` for each runtime to check, the current one first with every package,
 * then each package's minimum with the packages whose minimum it is.
 */
export function nodeRuntimes(packed) {
  const everyPackage = [...packed.keys()];
  const runtimes = [
    { name: `node ${process.versions.node}`, bin: process.execPath, packages: everyPackage },
  ];
  const byMinimum = new Map();
  for (const [name, { manifest }] of packed) {
    const version = minimumNode(manifest);
    if (version === process.versions.node) continue;
    byMinimum.set(version, [...(byMinimum.get(version) ?? []), name]);
  }
  for (const [version, packages] of byMinimum) {
    runtimes.push({ name: `node ${version}`, bin: installedNode(version), packages });
  }
  return runtimes;
}

function installedNode(version) {
  const cache = process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache');
  const prefix = join(cache, 'service-sdk', `node-${version}`);
  const pkg = `node-${process.platform}-${process.arch}`;
  const bin = join(prefix, 'node_modules', pkg, 'bin', 'node');
  if (!existsSync(bin)) {
    execFileSync(
      'npm',
      ['install', '--silent', '--no-audit', '--no-fund', '--prefix', prefix, `${pkg}@${version}`],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
  }
  const printed = execFileSync(bin, ['--version']).toString().trim();
  if (printed !== `v${version}`) throw new Error(`${bin} is ${printed}, not v${version}`);
  return bin;
}
