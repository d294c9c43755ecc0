// Issue 16: `fields apply --permission-set NAME` grants read/edit on the 61 fields through a
// permission set assigned to the connecting user (no profile edit), idempotently.
import { describe, expect, it } from 'vitest';
import { customFields } from '../../src/index.js';
import { SalesforceError, setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { runMain } from './in-process.js';

const env = useEmulator();
const soapCalls = (operation: string) =>
  env.emulator.requests.filter((r) => r.soap?.operation === operation).length;

describe('fields apply --permission-set', { timeout: 60_000 }, () => {
  it('upserts the permission set with the 61 fields, assigns it once, and leaves the profile alone', async () => {
    const { emulator } = env;
    const { org } = emulator;
    const connection = connectTo(emulator);
    const result = await setUpFields(connection, { permissionSet: 'Service_Fields' });
    expect(result.ok).toBe(true);
    // 61 fields in calls of at most 10, then the permission set; no profile update.
    expect(result.calls).toEqual({ upsertMetadata: 7 + 1, updateMetadata: 0, readMetadata: 0 });
    expect(soapCalls('updateMetadata')).toBe(0);
    expect(result.grants.filter((g) => g.ok)).toHaveLength(61);
    expect(result.assignment).toEqual({ ok: true, created: true, errors: [] });

    const set = org.permissionSetNamed('Service_Fields');
    const granted = [...org.table('FieldPermissions').values()].filter(
      (p) => p.ParentId === set?.Id && p.PermissionsRead === true && p.PermissionsEdit === true,
    );
    expect(granted.map((p) => p.Field).sort()).toEqual(customFields.map((f) => f.fullName).sort());
    const assignments = [...org.table('PermissionSetAssignment').values()].filter(
      (a) => a.PermissionSetId === set?.Id,
    );
    expect(assignments.map((a) => a.AssigneeId)).toEqual([org.userId]);
    // The user now reads and edits the fields through the set: describe shows them updateable.
    expect(org.describe('Lead').find((f) => f.name === 'ServiceSessions__c')?.updateable).toBe(
      true,
    );

    // A second run finds nothing to do: no Metadata call, no second assignment.
    const requests = emulator.requests.length;
    const again = await setUpFields(connection, { permissionSet: 'Service_Fields' });
    expect(again.unchanged).toBe(true);
    expect(again.plan.permissionSet).toMatchObject({ name: 'Service_Fields', assigned: true });
    const sent = emulator.requests.slice(requests);
    expect(sent.filter((r) => r.soap || r.method === 'POST')).toEqual([]);
  });

  it('grants again what an admin took away, without assigning twice; refuses a name that is not an API name', async () => {
    const { emulator } = env;
    const { org } = emulator;
    const set = org.permissionSetNamed('Service_Fields');
    org.grant(set?.Id ?? '', 'Account.ServiceSessions__c', true, false);
    const tokens = emulator.issueTokens();
    const { code, out } = await runMain(
      ['fields', 'apply', '--permission-set', 'Service_Fields', '--json'],
      {
        SF_INSTANCE_URL: tokens.instanceUrl,
        SF_ACCESS_TOKEN: tokens.accessToken,
        SERVICE_CRM_HOME: '/nonexistent',
      },
    );
    expect(code).toBe(0);
    const report = JSON.parse(out.at(-1) ?? '{}');
    expect(report.calls).toEqual({ upsertMetadata: 1, updateMetadata: 0, readMetadata: 0 });
    expect(report.grants.map((g: { fullName: string }) => g.fullName)).toEqual([
      'Account.ServiceSessions__c',
    ]);
    expect(report.assignment).toBeUndefined(); // assigned already
    expect(
      [...org.table('PermissionSetAssignment').values()].filter(
        (a) => a.PermissionSetId === set?.Id,
      ),
    ).toHaveLength(1);

    await expect(
      setUpFields(connectTo(emulator), { permissionSet: 'Service Fields; DROP' }),
    ).rejects.toThrow(SalesforceError);
  });
});
