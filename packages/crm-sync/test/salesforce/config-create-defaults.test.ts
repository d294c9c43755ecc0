// `createDefaults` in the --config settings file: validated with the rest of the file, a bad one
// named by its path (exit 2).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/cli/config.js';

async function configFile(value: unknown): Promise<string> {
  const path = join(await mkdtemp(join(tmpdir(), 'crm-config-')), 'config.json');
  await writeFile(path, JSON.stringify(value));
  return path;
}

describe('createDefaults in the settings file', () => {
  it('is read per object', async () => {
    const createDefaults = {
      Lead: { recordTypeId: '012000000000001AAA', fields: { LeadSource: 'Service' } },
    };
    const config = await loadConfig(await configFile({ createDefaults }));
    expect(config.createDefaults).toEqual(createDefaults);
  });

  it('refuses an object it does not write, and an id that is not a record type id', async () => {
    for (const createDefaults of [{ Case: {} }, { Lead: { recordTypeId: '00Q000000000001' } }]) {
      const refused = loadConfig(await configFile({ createDefaults }));
      await expect(refused).rejects.toThrow(/createDefaults/);
      await expect(refused).rejects.toMatchObject({ exitCode: 2 });
    }
  });
});
