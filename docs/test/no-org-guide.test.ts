// The "five minutes, no org" guide runs as written: its files saved, its ```sh run blocks run in
// order by bash in an empty directory whose node_modules holds the built packages (as its
// `npm install` line would put them there), and it ends with Service fields on the records and a
// timeline post in the emulator. scripts/check-install.mjs runs the same from the packed tarballs.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from './markdown-blocks.ts';
import { readGuide, runGuide, whatTheGuideLacks } from './no-org-guide.ts';

const PACKAGES: Record<string, readonly [string, Record<string, string>]> = {
  '@service/crm-sync': ['packages/crm-sync', { 'service-crm': 'dist/cli.js' }],
  '@service/lookup-core': ['packages/lookup-core', {}],
  '@service/salesforce-emulator': [
    'tools/salesforce-emulator',
    { 'salesforce-emulator': 'dist/cli.js' },
  ],
};
const dir = mkdtempSync(join(tmpdir(), 'no-org-guide-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Links the packages the guide installs into `dir`'s node_modules, with their commands. */
function install(packages: readonly string[]): void {
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  mkdirSync(join(dir, 'node_modules/@service'));
  for (const name of packages) {
    const [path, bins] = PACKAGES[name] ?? [];
    if (path === undefined || bins === undefined) throw new Error(`${name}: not a package here`);
    symlinkSync(join(repositoryRoot, path), join(dir, 'node_modules', name));
    for (const [bin, file] of Object.entries(bins))
      symlinkSync(join(repositoryRoot, path, file), join(dir, 'node_modules/.bin', bin));
  }
}

describe('the no-org guide', () => {
  it('ends with Service fields on the records and a timeline post on the new Lead', async () => {
    const guide = readGuide();
    expect([...guide.files.keys()].sort()).toEqual(['seed.json', 'service-crm.json']);
    install(guide.packages);
    // Stopped before the test's own timeout (vitest.config.ts), so nothing is left running.
    const output = await runGuide(guide, dir, ':', process.env, 100_000);
    expect(whatTheGuideLacks(output)).toEqual([]);
  });
});
