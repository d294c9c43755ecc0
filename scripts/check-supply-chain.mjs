// Supply chain: the lockfile is committed and CI installs from it unchanged (--frozen-lockfile);
// every runtime dependency of a public package is imported by its source (none it does not need)
// and is listed with its reason in the package README's dependencies section.
// Exits 1 with one line per problem.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { packageDirs } from './install-check/projects.mjs';

const root = new URL('..', import.meta.url).pathname;
const problems = [];

const tracked = execFileSync('git', ['ls-files', 'pnpm-lock.yaml'], { cwd: root }).toString();
if (tracked.trim() !== 'pnpm-lock.yaml') problems.push('pnpm-lock.yaml is not committed');
const ci = readFileSync(join(root, '.ci/run'), 'utf8');
if (!/^\s*pnpm install --frozen-lockfile\b/m.test(ci))
  problems.push('.ci/run does not install with pnpm install --frozen-lockfile');

/** Every file under `dir`, recursively. */
function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

/** The text of the README sections whose heading names dependencies. */
function dependencySections(readme) {
  const sections = readme.split(/^(?=#{2,4} )/m);
  return sections.filter((s) => /^#{2,4} .*dependencies/i.test(s)).join('\n');
}

let checked = 0;
// The packages that may be published: packages/* and the Salesforce emulator (tools/).
for (const dir of packageDirs()) {
  const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (manifest.private) continue;
  const dependencies = Object.keys(manifest.dependencies ?? {});
  const source = files(join(dir, 'src'))
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const listed = dependencySections(readFileSync(join(dir, 'README.md'), 'utf8'));
  if (dependencies.length > 0 && listed === '')
    problems.push(`${manifest.name}: README has no dependencies section`);
  for (const dependency of dependencies) {
    checked++;
    // A value import or re-export (`import type` needs no runtime dependency), a dynamic import,
    // or a require (createRequire's, for a package Node's ESM loader cannot name exports of).
    const name = dependency.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    const imported = new RegExp(
      `^\\s*(import|export)(?!\\s+type\\b)[^;]*?from '${name}(/[^']*)?'|import\\('${name}(/[^']*)?'\\)|(\\brequire|createRequire\\([^)]*\\))\\(\\s*'${name}(/[^']*)?'`,
      'm',
    );
    if (!imported.test(source))
      problems.push(`${manifest.name}: runtime dependency ${dependency} is never imported by src`);
    // A list item naming the dependency and saying, in a few words, why it is needed.
    const item = listed
      .split('\n')
      .find((line) => /^\s*- /.test(line) && line.includes(dependency));
    if (item === undefined || item.replace(/[`*]/g, '').length < dependency.length + 20)
      problems.push(`${manifest.name}: README does not list ${dependency} with why it is needed`);
  }
}

if (problems.length > 0) {
  console.error(`supply chain: FAILED\n  ${problems.join('\n  ')}`);
  process.exit(1);
}
console.log(
  `supply chain: lockfile committed, CI installs frozen; ${checked} runtime dependencies imported and explained`,
);
