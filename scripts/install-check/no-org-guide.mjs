// The "five minutes, no org" guide (docs/crm-sync/no-org.md) run as written in an empty project,
// from the packed tarballs: its `npm install` line with each package named by its tarball (and
// the tarballs of the workspace packages those need), then its ```sh run blocks (the release
// rehearsal runs the line as written, from its registry); it must end with
// Service fields on the records and a timeline post, read back by the guide's own queries.
import { mkdirSync, writeFileSync } from 'node:fs';
import { readGuide, runGuideToItsEnd } from '../../docs/test/no-org-guide.ts';
import { onPath, withWorkspaceDependencies } from './projects.mjs';

/** Runs the guide in the empty folder `dir` on `runtime`; throws with what it lacks or its output. */
export async function noOrgGuide(packed, dir, runtime) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/package.json`, '{"name":"no-org-guide","private":true}\n');
  const guide = readGuide();
  const unknown = guide.packages.filter((name) => !packed.has(name));
  if (unknown.length > 0) throw new Error(`the guide installs ${unknown.join(', ')}: not packed`);
  // The workspace packages those need are not in the registry either: their tarballs go too.
  const needed = guide.packages.flatMap((name) => withWorkspaceDependencies(packed, name));
  const extra = [...new Set(needed)].filter((name) => !guide.packages.includes(name));
  const install = [
    guide.install.replace(/@service\/[\w-]+/g, (name) => packed.get(name).tarball),
    ...extra.map((name) => packed.get(name).tarball),
  ].join(' ');
  // Long enough for npm to install the tarballs on a loaded machine: a guard against a hang.
  await runGuideToItsEnd(guide, dir, install, onPath(runtime), 300_000);
}
