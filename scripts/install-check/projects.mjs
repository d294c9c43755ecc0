// Packs every public package and installs the tarballs into empty projects with npm, as a user
// would: one project per package, holding only that package (and the tarballs of the workspace
// packages it depends on), with the harness that loads its entries copied in beside.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const here = new URL('.', import.meta.url).pathname;
const root = new URL('../../', import.meta.url).pathname;

/**
 * The folders of the packages that may be published: those under packages/, and the Salesforce
 * emulator, published from tools/ (docs/design/2026-11-29-emulator-package.md).
 */
export function packageDirs() {
  return [
    ...readdirSync(join(root, 'packages')).map((dir) => join(root, 'packages', dir)),
    join(root, 'tools', 'salesforce-emulator'),
  ];
}

/** `name -> { tarball, manifest }` for every public package (`packageDirs`). */
export function packAll(destination) {
  const packed = new Map();
  for (const dir of packageDirs()) {
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    // A private package is never published (the lookup contract is built into its importers).
    if (manifest.private) continue;
    const out = execFileSync('pnpm', ['pack', '--pack-destination', destination, '--json'], {
      cwd: dir,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    packed.set(manifest.name, { tarball: JSON.parse(out.toString()).filename, manifest });
  }
  return packed;
}

/** The workspace packages `name` needs at run time, itself first. */
export function withWorkspaceDependencies(packed, name) {
  const { manifest } = packed.get(name);
  const needed = Object.keys(manifest.dependencies ?? {}).filter((dep) => packed.has(dep));
  return [name, ...needed.flatMap((dep) => withWorkspaceDependencies(packed, dep))];
}

/** Installs `name` into the empty folder `dir` with npm run by `runtime`; returns the milliseconds it took. */
export function install(packed, name, dir, runtime) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"name":"app","private":true}\n');
  for (const file of ['load.mjs', 'load.cjs', 'calls.mjs'])
    copyFileSync(join(here, file), join(dir, file));
  const tarballs = [...new Set(withWorkspaceDependencies(packed, name))].map(
    (n) => packed.get(n).tarball,
  );
  const started = performance.now();
  execFileSync('npm', ['install', '--no-audit', '--no-fund', '--silent', ...tarballs], {
    cwd: dir,
    env: onPath(runtime),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return performance.now() - started;
}

/** The environment with `runtime` first on PATH, so `#!/usr/bin/env node` scripts (npm, a package's bin) run on it. */
export function onPath(runtime, env = process.env) {
  return { ...env, PATH: `${dirname(runtime.bin)}:${env.PATH}` };
}
