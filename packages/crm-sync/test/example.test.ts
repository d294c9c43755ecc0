import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

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
