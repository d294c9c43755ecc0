// The first example of the README's Salesforce section type-checks against the code.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const root = join(import.meta.dirname, '../..');

it('the README example of @service/crm-sync/salesforce type-checks', () => {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### First example: connect, set up fields, sync'));
  const snippet = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(snippet).toBeDefined();
  const dir = join(root, 'node_modules/.cache/readme-salesforce');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'snippet.ts'), `${snippet}\nexport {};\n`);
  writeFileSync(
    join(dir, 'tsconfig.json'),
    JSON.stringify({
      extends: '../../../tsconfig.json',
      compilerOptions: {
        noEmit: true,
        // This package from its sources; @service/lookup-core from its build.
        paths: {
          '@service/crm-sync': ['../../../src/index.ts'],
          '@service/crm-sync/salesforce': ['../../../src/salesforce.ts'],
        },
      },
      include: ['snippet.ts'],
    }),
  );
  const tsc = spawnSync(
    process.execPath,
    [join(root, 'node_modules/typescript/bin/tsc'), '-p', dir],
    {
      encoding: 'utf8',
    },
  );
  expect(tsc.stdout + tsc.stderr).toBe('');
  expect(tsc.status).toBe(0);
}, 120_000);
