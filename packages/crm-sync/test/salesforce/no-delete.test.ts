// Records are never deleted (docs/crm-sync/planning.md, "The plan"): no code path of the
// Salesforce entry or the command can send a DELETE or call a delete/destroy API. Each test file's
// emulator also asserts, after its tests, that it never received a DELETE request (helpers.ts).
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openIngestJob } from '../../src/salesforce/bulk/jobs.js';
import { SalesforceError } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator();
const src = join(import.meta.dirname, '../../src');

async function sources(): Promise<string[]> {
  const entries = await readdir(src, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.ts'))
    .map((e) => join(e.parentPath, e.name))
    .filter((path) => /[/\\](salesforce|cli)([/\\]|\.ts$)/.test(path));
}

describe('no delete anywhere', () => {
  it('has no DELETE method, delete/destroy call or delete operator in the Salesforce entry and the command', async () => {
    const files = await sources();
    expect(files.length).toBeGreaterThan(10);
    for (const file of files) {
      const code = (await readFile(file, 'utf8')).replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, '');
      expect(code, file).not.toMatch(/['"`]DELETE['"`]/i);
      expect(code, file).not.toMatch(/\.(destroy|del|delete|deleteMetadata|destroyMetadata)\s*\(/);
      expect(code, file).not.toMatch(/\bdelete\s+[\w[]/);
      // No Bulk API job that deletes: neither operation is named anywhere.
      expect(code, file).not.toMatch(/hardDelete|operation:\s*['"`]delete/i);
    }
  });

  it('refuses to send a DELETE even when asked through an untyped call', async () => {
    const connection = connectTo(env.emulator);
    const rest = connection.rest.bind(connection) as (
      method: string,
      path: string,
    ) => Promise<unknown>;
    await expect(rest('DELETE', '/sobjects/Account/001000000000000AAA')).rejects.toBeInstanceOf(
      SalesforceError,
    );
    await expect(rest('PUT', '/sobjects/Account/001000000000000AAA')).rejects.toThrow(
      /never deletes/,
    );
    expect(env.emulator.requests).toHaveLength(0);
  });

  it('refuses to make a delete or hardDelete Bulk API 2.0 job, sending nothing', async () => {
    const connection = connectTo(env.emulator);
    const open = openIngestJob as (c: typeof connection, o: string, op: string) => Promise<string>;
    for (const operation of ['delete', 'hardDelete']) {
      await expect(open(connection, 'Account', operation)).rejects.toThrow(
        /only inserts and updates/,
      );
    }
    expect(env.emulator.requests).toHaveLength(0);
    expect(env.emulator.bulk.jobs.size).toBe(0);
  });
});
