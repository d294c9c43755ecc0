import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { PlanStep } from '../src/index.js';

const src = resolve(dirname(fileURLToPath(import.meta.url)), '../src');
/** Workspace packages built into crm-sync's own files: their modules are the root entry's too. */
const BUNDLED: Record<string, string> = {
  '@service/lookup-contract': resolve(src, '../../lookup-contract/src/index.ts'),
};

/**
 * Every module the root entry loads, following its relative imports and the bundled packages, and
 * the packages they name.
 */
function importGraph(entry: string): { modules: Set<string>; packages: Set<string> } {
  const modules = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (modules.has(file)) return;
    modules.add(file);
    const text = readFileSync(file, 'utf8');
    for (const [, specifier = ''] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const bundled = BUNDLED[specifier];
      if (specifier.startsWith('.'))
        visit(resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else if (bundled !== undefined) visit(bundled);
      else packages.add(specifier);
    }
  };
  visit(resolve(src, entry));
  return { modules, packages };
}

describe('the root entry', () => {
  it('is pure: no Salesforce client, no lookup-core, no Node built-ins', () => {
    const { modules, packages } = importGraph('index.ts');
    expect([...packages].sort()).toEqual(['tldts', 'xmlbuilder2', 'zod/mini']);
    expect([...modules].some((m) => m.includes('/salesforce'))).toBe(false);
  });

  it('has no delete step type: a plan cannot delete by construction', () => {
    expectTypeOf<PlanStep['type']>().toEqualTypeOf<'update' | 'create' | 'feedPost' | 'skip'>();
  });

  it('has no delete anywhere: no DELETE method, no delete/destroy call', () => {
    for (const file of importGraph('index.ts').modules) {
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\/|\/\/.*$/gm, '');
      expect(code, file).not.toMatch(
        /['"]DELETE['"]|\.(delete|destroy)\w*\(\s*['"]?(Account|Contact|Lead)|type:\s*'delete'/i,
      );
    }
  });
});
