/**
 * A Node.js older than the packages' `engines` range (>=22.12) on this machine, for the tests
 * that run a command's built bin under it: the machines' own Node is 20, while the toolchain puts
 * a newer one first on PATH. `missing` is the reason to skip when there is none.
 */
import { execFileSync } from 'node:child_process';

const CANDIDATES = ['/usr/bin/node', '/usr/local/bin/node'];

function versionOf(path: string): string | undefined {
  try {
    return execFileSync(path, ['--version'], { encoding: 'utf8' }).trim().replace(/^v/, '');
  } catch {
    return undefined; // not installed there
  }
}

function older(version: string): boolean {
  const [major = 0, minor = 0] = version.split('.').map(Number);
  return major < 22 || (major === 22 && minor < 12);
}

const found = CANDIDATES.map((path) => ({ path, version: versionOf(path) })).find(
  (c): c is { path: string; version: string } => c.version !== undefined && older(c.version),
);

export const olderNode = found;
export const missingOlderNode = found
  ? undefined
  : `no Node.js older than 22.12 at ${CANDIDATES.join(' or ')}`;
