/**
 * The ```ts code blocks of the documentation: every package README and every page under docs/.
 * A block fenced ```ts run is also run, against a real lookup server, by code-blocks.test.ts.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

export const repositoryRoot = join(import.meta.dirname, '../..');

export interface CodeBlock {
  /** The Markdown file, relative to the repository root. */
  readonly file: string;
  /** Line of the block's first line of code in that file (1-based). */
  readonly line: number;
  readonly code: string;
  /** Fenced ```ts run: the block is run as well as type-checked. */
  readonly run: boolean;
}

/** The Markdown files whose code is checked: package READMEs and docs/, not generated output. */
export function documentationFiles(root = repositoryRoot): string[] {
  // Workspace-only packages (the shared contract, test support) may have no README.
  const packages = readdirSync(join(root, 'packages'))
    .map((name) => join(root, 'packages', name, 'README.md'))
    .filter((file) => existsSync(file));
  // Published from tools/ (see docs/design/2026-11-29-emulator-package.md).
  packages.push(join(root, 'tools', 'salesforce-emulator', 'README.md'));
  const docs = readdirSync(join(root, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md') && !/^(api|node_modules)\//.test(file))
    .map((file) => join(root, 'docs', file));
  return [...packages, ...docs].map((file) => relative(root, file)).sort();
}

/** The ```ts (and ```typescript) blocks of one Markdown text. */
export function codeBlocks(file: string, markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```(ts|typescript)(\s+run)?\s*$/.exec(lines[i] as string);
    if (!open) continue;
    const indent = (open[1] as string).length;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^\s*```\s*$/.test(lines[end] as string)) end++;
    const code = lines
      .slice(start, end)
      .map((line) => line.slice(Math.min(indent, line.length - line.trimStart().length)))
      .join('\n');
    blocks.push({ file, line: start + 1, code: `${code}\n`, run: open[3] !== undefined });
    i = end;
  }
  return blocks;
}

/** Every ```ts block of the documentation, in file order. */
export function documentationBlocks(root = repositoryRoot): CodeBlock[] {
  return documentationFiles(root).flatMap((file) =>
    codeBlocks(file, readFileSync(join(root, file), 'utf8')),
  );
}
