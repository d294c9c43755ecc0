/**
 * The test files of a package that assert types (`expectTypeOf`, `assertType`). Under `vitest run`
 * those assertions do nothing; a project config passes this list to vitest's typecheck mode, so tsc
 * checks them inside the test run and a wrong type fails the test that states it. Found by content,
 * so a new type test is checked without touching the config.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function typeTestFiles(packageDir: string): string[] {
  return readdirSync(join(packageDir, 'test'), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.test.ts'))
    .map((file) => join('test', file))
    .filter((file) =>
      /\b(expectTypeOf|assertType)\b/.test(readFileSync(join(packageDir, file), 'utf8')),
    )
    .sort();
}
