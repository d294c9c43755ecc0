// No function in packages/*/src, tools/* or scripts/ is longer than MAX_LINES lines (from its first
// line to its last), so each one does one job that a reader can hold. Declarative data built by a
// function (the OpenAPI document, the schema tables) is allowed by name below. Test files are left
// out in tools as in packages: a `describe` block is a list of cases, not a function to follow.
// Run by `pnpm lint`.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

const MAX_LINES = 100;
const ROOT = join(import.meta.dirname, '..');

/** `file:function` of functions that only build declarative data. */
const ALLOWED = new Set([
  // The OpenAPI 3.1 document of the lookup: one object literal, generated from the zod schemas.
  'packages/lookup-client/src/openapi.ts:openApiDocument',
]);

const SKIPPED = new Set(['node_modules', 'dist', '.next', 'coverage', 'test']);

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIPPED.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(?:[cm]?[jt]sx?)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

/** Where the rule holds: every package's `src/`, every tool, and the repository's scripts. */
function checkedDirs() {
  const dirs = readdirSync(join(ROOT, 'packages')).map((pkg) => join(ROOT, 'packages', pkg, 'src'));
  for (const tool of readdirSync(join(ROOT, 'tools'))) dirs.push(join(ROOT, 'tools', tool));
  return [...dirs, join(ROOT, 'scripts')];
}

/** A function's name as a reader finds it: its own, or the variable or property it is given to. */
function nameOf(node) {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)))
    return parent.name.getText();
  return '(anonymous)';
}

const tooLong = [];
for (const dir of checkedDirs()) {
  let files;
  try {
    files = [...sourceFiles(dir)];
  } catch {
    continue; // a package without src/
  }
  for (const file of files) {
    const source = ts.createSourceFile(
      file,
      readFileSync(file, 'utf8'),
      ts.ScriptTarget.Latest,
      true,
    );
    const visit = (node) => {
      if (ts.isFunctionLike(node) && 'body' in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
        const lines = last - first + 1;
        const where = `${relative(ROOT, file)}:${nameOf(node)}`;
        if (lines > MAX_LINES && !ALLOWED.has(where))
          tooLong.push(`${relative(ROOT, file)}:${first + 1} ${nameOf(node)}: ${lines} lines`);
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
}

if (tooLong.length > 0) {
  console.error(`Functions longer than ${MAX_LINES} lines (split them into named steps):`);
  for (const line of tooLong) console.error(`  ${line}`);
  process.exit(1);
}
