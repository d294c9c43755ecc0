import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import {
  renderCatalogueTable,
  replaceCatalogueTable,
  TABLE_END,
  TABLE_START,
} from '../scripts/catalogue-table.ts';
import { fieldCatalogue, standardFields } from '../src/index.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const readme = readFileSync(resolve(root, 'README.md'), 'utf8');
const example = readFileSync(resolve(root, 'examples/print-plan.ts'), 'utf8');

describe('README', () => {
  it('shows the catalogue table generated from the data (run `pnpm --filter @service/crm-sync readme:catalogue` when this fails)', () => {
    const table = renderCatalogueTable(fieldCatalogue, standardFields);
    expect(replaceCatalogueTable(readme, table)).toBe(readme);
    for (const field of fieldCatalogue) expect(table).toContain(`\`${field.apiName}\``);
  });

  it('notices a stale table', () => {
    const stale = readme.replace('`ServiceSessions__c`', '`ServiceSession__c`');
    expect(
      replaceCatalogueTable(stale, renderCatalogueTable(fieldCatalogue, standardFields)),
    ).not.toBe(stale);
    expect(() => replaceCatalogueTable(readme.replace(TABLE_START, ''), '')).toThrow(TABLE_END);
  });

  it('shows examples/print-plan.ts as it is', () => {
    expect(readme).toContain(
      `<!-- example:start examples/print-plan.ts -->\n\`\`\`ts\n${example}\`\`\`\n<!-- example:end -->`,
    );
  });
});

describe('examples/print-plan.ts', () => {
  // Examples import the built package, as a user's script would: `pnpm test` builds first.
  const built = existsSync(resolve(root, 'dist/index.js'));

  it('runs and prints the field-setup envelopes and a dry-run plan', () => {
    expect(built, 'build @service/crm-sync first (pnpm --filter @service/crm-sync build)').toBe(
      true,
    );
    const run = spawnSync(process.execPath, ['examples/print-plan.ts'], {
      cwd: root,
      encoding: 'utf8',
    });
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('7 upsertMetadata calls and 1 updateMetadata call');
    expect(run.stdout).toContain('<metadata xsi:type="CustomField">');
    expect(run.stdout).toContain('create Lead Lead:new@acme.com');
    expect(run.stdout).toContain('2 updates, 1 creates, 2 feed posts, 0 skipped (0 ambiguous)');
  });
});
