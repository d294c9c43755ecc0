// What `changeset version` would make of the pending changesets, without touching this checkout:
// it runs in a throwaway copy of the working tree (committed or not) and prints each package's new
// version and CHANGELOG.md, then removes the copy.
import { execFileSync } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const copy = mkdtempSync(join(tmpdir(), 'service-changeset-'));
const git = (args, cwd) => execFileSync('git', args, { cwd, encoding: 'utf8' });

try {
  // Tracked and new files as they are on disk (deleted ones are gone), without node_modules.
  const files = git(['ls-files', '-z', '--cached', '--others', '--exclude-standard'], root)
    .split('\0')
    .filter((file) => file && existsSync(join(root, file)));
  for (const file of new Set(files))
    cpSync(join(root, file), join(copy, file), { recursive: true });
  // The changesets CLI and its dependencies, from this checkout (read only).
  symlinkSync(join(root, 'node_modules'), join(copy, 'node_modules'));
  // A repository of its own: changesets asks git which commit added each changeset.
  const identity = ['-c', 'user.name=dry-run', '-c', 'user.email=dry-run@localhost'];
  git(['init', '-q'], copy);
  git(['add', '-A'], copy);
  git([...identity, 'commit', '-qm', 'dry run'], copy);

  const bin = join(root, 'node_modules/@changesets/cli/bin.js');
  execFileSync(process.execPath, [bin, 'version'], { cwd: copy, stdio: 'inherit' });

  for (const name of readdirSync(join(copy, 'packages'))) {
    const dir = join(copy, 'packages', name);
    const { version } = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const changelog = join(dir, 'CHANGELOG.md');
    console.log(`\n===== packages/${name}: ${version}`);
    console.log(existsSync(changelog) ? readFileSync(changelog, 'utf8') : '(no CHANGELOG.md)');
  }
  const left = readdirSync(join(copy, '.changeset')).filter((f) => f.endsWith('.md'));
  console.log(`pending changesets left: ${left.length === 0 ? 'none' : left.join(', ')}`);
} finally {
  rmSync(copy, { recursive: true, force: true });
}
