// A scratch project as an integrator sets one up to test a sync without an org: the packed
// crm-sync, lookup-core and salesforce-emulator, vitest from the registry, and a vitest file that
// starts the emulator through its API, plans from the sample events, applies and reads the records.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { onPath, withWorkspaceDependencies } from './projects.mjs';

const here = new URL('.', import.meta.url).pathname;
const PACKAGES = ['@service/crm-sync', '@service/lookup-core', '@service/salesforce-emulator'];

/** Sets up the project in `dir` and runs its vitest file on `runtime`; throws with vitest's output on failure. */
export function scratchSync(packed, dir, runtime) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), '{"name":"scratch","private":true,"type":"module"}\n');
  copyFileSync(join(here, 'emulator-sync.test.mjs'), join(dir, 'emulator-sync.test.mjs'));
  const names = new Set(PACKAGES.flatMap((name) => withWorkspaceDependencies(packed, name)));
  const tarballs = [...names].map((name) => packed.get(name).tarball);
  const options = { cwd: dir, env: onPath(runtime), stdio: ['ignore', 'pipe', 'pipe'] };
  execFileSync(
    'npm',
    ['install', '--no-audit', '--no-fund', '--silent', ...tarballs, 'vitest@^5.1.1'],
    options,
  );
  try {
    execFileSync(join(dir, 'node_modules/.bin/vitest'), ['run'], options);
  } catch (error) {
    throw new Error(`${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || error.message);
  }
}
