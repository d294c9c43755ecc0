// The "five minutes, no org" guide (docs/crm-sync/no-org.md) run as written in an empty project,
// from the packed tarballs: its `npm install` line with each package named by its tarball (and
// the tarballs of the workspace packages those need), then its ```sh run blocks; it must end with
// Service fields on the records and a timeline post, read back by the guide's own queries.
import { mkdirSync, writeFileSync } from 'node:fs';
import { readGuide, runGuide, whatTheGuideLacks } from '../../docs/test/no-org-guide.ts';
import { onPath, withWorkspaceDependencies } from './projects.mjs';

/** Runs the guide in the empty folder `dir` on `runtime`; throws with what it lacks or its output. */
export async function noOrgGuide(packed, dir, runtime) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}/package.json`, '{"name":"no-org-guide","private":true}\n');
  const guide = readGuide();
  const unknown = guide.packages.filter((name) => !packed.has(name));
  if (unknown.length > 0) throw new Error(`the guide installs ${unknown.join(', ')}: not packed`);
  const names = new Set(guide.packages.flatMap((name) => withWorkspaceDependencies(packed, name)));
  const install = `npm install --no-audit --no-fund ${[...names].map((name) => packed.get(name).tarball).join(' ')}`;
  // Long enough for npm to install the tarballs on a loaded machine: a guard against a hang.
  const output = await runGuide(guide, dir, install, onPath(runtime), 300_000);
  const lacks = whatTheGuideLacks(output);
  if (lacks.length > 0)
    throw new Error(`the guide's output lacks: ${lacks.join('; ')}\n\n${output.trim()}`);
}
