// Fails when a test, example, benchmark or test tool reaches into another workspace package's
// `src/` or `test/` by a path (`../../lookup-core/src/index.js`), or by a deep package path
// (`@service/lookup-core/src/...`). Shared test code lives in tools/* and is imported by name;
// a package is imported as its users import it. Run by `pnpm lint`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const CODE = /\.(?:[cm]?[jt]sx?)$/;
const SKIPPED = new Set(['node_modules', 'dist', '.next', 'coverage']);
// Static and dynamic imports, re-exports, require, and file URLs built from import.meta.url.
const SPECIFIER =
  /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*|\bnew URL\s*\(\s*)(['"])([^'"\n]+)\1/g;

/** The workspace package a path belongs to: `packages/x`, `examples/x`, `tools/x` or `bench`. */
function ownerOf(path) {
  const [top, name] = relative(ROOT, path).split(sep);
  if (top === 'bench') return 'bench';
  return ['packages', 'examples', 'tools'].includes(top) && name ? `${top}/${name}` : undefined;
}

function* codeFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* codeFiles(path);
    else if (CODE.test(entry.name)) yield path;
  }
}

/** Where the rule applies: every package's tests, the examples, the benchmarks, the test tools. */
function checkedFiles() {
  const roots = [join(ROOT, 'bench')];
  for (const top of ['packages', 'examples', 'tools']) {
    for (const entry of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      roots.push(
        top === 'packages' ? join(ROOT, top, entry.name, 'test') : join(ROOT, top, entry.name),
      );
    }
  }
  return roots.flatMap((root) => {
    try {
      return [...codeFiles(root)];
    } catch {
      return []; // a package without tests
    }
  });
}

/** Why `specifier`, written in `file`, reaches into another package's sources or tests, if it does. */
function violation(file, specifier) {
  if (/^@service\/[^/]+\/(?:src|test)(?:\/|$)/.test(specifier))
    return 'imports a package by its source path';
  if (!specifier.startsWith('.')) return undefined;
  const target = resolve(dirname(file), specifier);
  const owner = ownerOf(target);
  if (owner === undefined || owner === ownerOf(file)) return undefined;
  const inside = relative(join(ROOT, owner), target).split(sep)[0];
  return inside === 'src' || inside === 'test' ? `reaches into ${owner}/${inside}` : undefined;
}

const found = [];
for (const file of checkedFiles()) {
  const text = readFileSync(file, 'utf8');
  for (const match of text.matchAll(SPECIFIER)) {
    const why = violation(file, match[2]);
    if (why === undefined) continue;
    const line = text.slice(0, match.index).split('\n').length;
    found.push(`${relative(ROOT, file)}:${line}: '${match[2]}' ${why}`);
  }
}
if (found.length > 0) {
  console.error(
    `${found.length} import(s) into another package's src/ or test/ (import the package by name; shared test code belongs in tools/):\n  ${found.join('\n  ')}`,
  );
  process.exit(1);
}
