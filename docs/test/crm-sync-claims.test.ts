// Claims the crm-sync docs make that the package's own suite does not cover, checked against
// the Salesforce emulator (@service/salesforce-emulator): `connect()` takes the `jsforce` package's own
// Connection (README), and `service-crm fields apply` without the permissions exits 6 (errors.md).
import { spawn } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { customFields } from '@service/crm-sync';
import { connect, setUpFields } from '@service/crm-sync/salesforce';
import { STANDARD_USER, startEmulator } from '@service/salesforce-emulator';
import { Connection } from 'jsforce';
import { describe, expect, it } from 'vitest';
import { repositoryRoot } from './markdown-blocks.ts';

describe("connect() with the jsforce package's own Connection", () => {
  it('sets up fields through it, Metadata calls included', async () => {
    const emulator = await startEmulator({ validateSchema: false });
    try {
      const tokens = emulator.issueTokens();
      const jsforce = new Connection({
        instanceUrl: tokens.instanceUrl,
        accessToken: tokens.accessToken,
        version: '59.0',
      });
      const connection = connect(jsforce);
      expect(connection.jsforce).toBe(jsforce);
      const fields = customFields.filter((f) => f.object === 'Lead').slice(0, 2);
      const result = await setUpFields(connection, { fields });
      expect(result.ok).toBe(true);
      expect(result.fields.map((f) => f.created)).toEqual([true, true]);
      expect(emulator.requests.some((r) => r.soap)).toBe(true);
      expect(emulator.requests.filter((r) => r.method === 'DELETE')).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});

describe('service-crm exit codes', () => {
  it('fields apply exits 6 when the user lacks the permissions field setup needs', async () => {
    const emulator = await startEmulator({ profile: STANDARD_USER, validateSchema: false });
    try {
      const tokens = emulator.issueTokens();
      const home = await mkdtemp(join(tmpdir(), 'service-crm-exit-6-'));
      const child = spawn(
        process.execPath,
        [join(repositoryRoot, 'packages/crm-sync/dist/cli.js'), 'fields', 'apply'],
        {
          cwd: home,
          env: {
            PATH: process.env.PATH,
            SERVICE_CRM_HOME: home,
            SF_INSTANCE_URL: tokens.instanceUrl,
            SF_ACCESS_TOKEN: tokens.accessToken,
          },
        },
      );
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      expect(code).toBe(6);
      expect(stderr).toMatch(/Modify All Data/);
      expect(stderr).toMatch(/Reconnect with a System Administrator/);
      expect(emulator.requests.some((r) => r.soap)).toBe(false);
    } finally {
      await emulator.close();
    }
  });
});
