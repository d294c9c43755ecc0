// `@service/crm-sync/salesforce` loads only jsforce's Connection and Metadata modules. Imported
// before jsforce itself (or @salesforce/core, whose Connection extends jsforce's), it must leave
// jsforce whole: entering jsforce's module cycle at its connection module left the package's
// exported `Connection` undefined.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { runCli } from '@service/test-support';
import { expect, it } from 'vitest';
import { buildEntry, packageDir } from './build-cli.js';

it('importing @service/crm-sync/salesforce first leaves jsforce and @salesforce/core usable', async () => {
  const outDir = join(packageDir, 'node_modules/.cache/import-order-test');
  const built = await buildEntry(outDir, 'salesforce', 'src/salesforce.ts');
  const script = join(outDir, 'import-order.mjs');
  await writeFile(
    script,
    [
      `await import(${JSON.stringify(built)});`,
      "const jsforce = await import('@jsforce/jsforce-node');",
      "const core = await import('@salesforce/core');",
      'console.log(typeof jsforce.Connection, typeof core.Connection);',
    ].join('\n'),
  );
  const run = await runCli(script, [], { cwd: outDir });
  expect(run.stderr).toBe('');
  expect(run.stdout.trim()).toBe('function function');
}, 60_000);
