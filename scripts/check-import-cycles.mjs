// No circle of imports among the modules of a package or tool (packages/*/src, tools/*): a
// module that imports, through any chain, a module that imports it back makes the two one design
// unit in two files, and a circle through a value import can load a module half-initialised.
// Type-only imports count too, since they tie the two files' designs together all the same.
// Relative imports only (a workspace package is a boundary of its own). Run by `pnpm lint`.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const ROOT = resolve(import.meta.dirname, '..');
const CODE = /\.(?:[cm]?[jt]sx?)$/;
const SKIPPED = new Set(['node_modules', 'dist', '.next', 'coverage', 'test']);
// Static imports and re-exports (`import type` and `export ... from` included), and dynamic ones.
const SPECIFIER = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)(['"])(\.[^'"\n]*)\1/g;

function* codeFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* codeFiles(path);
    else if (CODE.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** The roots checked: every package's `src/` and every tool's folder (its tests left out). */
function roots() {
  const found = [];
  for (const [top, inside] of [
    ['packages', 'src'],
    ['tools', ''],
  ]) {
    for (const entry of readdirSync(join(ROOT, top), { withFileTypes: true })) {
      const dir = join(ROOT, top, entry.name, inside);
      if (entry.isDirectory() && existsSync(dir)) found.push(dir);
    }
  }
  return found;
}

/** The file a relative specifier names: `./x.js` is `x.ts` in the sources. */
function target(from, specifier) {
  const path = resolve(dirname(from), specifier);
  const candidates = [
    path,
    path.replace(/\.([cm]?)js$/, '.$1ts'),
    `${path}.ts`,
    join(path, 'index.ts'),
  ];
  return candidates.find((candidate) => CODE.test(candidate) && existsSync(candidate));
}

function importGraph(files) {
  const graph = new Map();
  for (const file of files) {
    const text = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|^\s*\/\/.*$/gm, '');
    const edges = new Set();
    for (const [, , specifier] of text.matchAll(SPECIFIER)) {
      const to = target(file, specifier);
      if (to !== undefined) edges.add(to);
    }
    graph.set(file, edges);
  }
  return graph;
}

/** The strongly connected components of more than one module, or of one importing itself (Tarjan). */
function circles(graph) {
  let next = 0;
  const index = new Map();
  const low = new Map();
  const stack = [];
  const onStack = new Set();
  const found = [];
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    let member;
    do {
      member = stack.pop();
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || graph.get(node)?.has(node)) found.push(component);
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

const files = roots().flatMap((root) => [...codeFiles(root)]);
const found = circles(importGraph(files));
if (found.length > 0) {
  console.error(`import circles (${found.length}): each group's modules import each other`);
  for (const component of found)
    console.error(`  ${component.map((file) => relative(ROOT, file)).join(' <-> ')}`);
  process.exit(1);
}
console.log(`import circles: none among ${files.length} modules (packages/*/src, tools/*)`);
