import { STANDARD_USER, startEmulator } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import { customFields } from '../../src/index.js';
import { planFieldSetup, SalesforcePermissionError, setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';

const env = useEmulator();
// The emulator validates every Metadata envelope against Salesforce's XSD (xmllint in wasm).
const SLOW = 60_000;

describe('field setup', () => {
  it(
    'creates the 61 fields in calls of at most 10, grants them on the profile, and a second run changes nothing',
    async () => {
      const { emulator } = env;
      const connection = connectTo(emulator);
      const first = await setUpFields(connection);
      expect(first.ok).toBe(true);
      expect(first.unchanged).toBe(false);
      expect(first.fields).toHaveLength(customFields.length);
      expect(first.fields.every((f) => f.created === true)).toBe(true);
      expect(first.calls).toEqual({ upsertMetadata: 7, updateMetadata: 1, readMetadata: 0 });
      const soap = emulator.requests.filter((r) => r.soap);
      expect(soap.map((r) => r.soap?.components)).toEqual([10, 10, 10, 10, 10, 10, 1, 1]);
      expect(soap.at(-1)?.soap?.operation).toBe('updateMetadata');
      expect(
        emulator.org.describe('Lead').some((f) => f.name === 'ServiceEnrichmentConfidence__c'),
      ).toBe(true);

      const second = await setUpFields(connection);
      expect(second.unchanged).toBe(true);
      expect(second.calls).toEqual({ upsertMetadata: 0, updateMetadata: 0, readMetadata: 0 });
      expect(emulator.requests.filter((r) => r.soap)).toHaveLength(8);
    },
    SLOW,
  );

  it(
    'upserts only a missing field, keeps one relabelled by an admin, and reports per-field failures',
    async () => {
      const { emulator } = env;
      const connection = connectTo(emulator);
      const label = emulator.org.fields.get('Account')?.get('ServiceSessions__c');
      if (label) label.label = 'Old label';
      emulator.org.fields.get('Contact')?.delete('ServicePersona__c');
      emulator.componentErrors.set('Contact.ServicePersona__c', {
        statusCode: 'DUPLICATE_DEVELOPER_NAME',
        message: 'This field name is already in use',
      });
      const plan = await planFieldSetup(connection);
      expect(plan.upserts.map((u) => [u.field.fullName, u.reason, u.differences])).toEqual([
        ['Contact.ServicePersona__c', 'missing', []],
      ]);
      expect(plan.relabelled.map((r) => [r.field.fullName, r.existing.label])).toEqual([
        ['Account.ServiceSessions__c', 'Old label'],
      ]);
      const result = await setUpFields(connection);
      expect(result.ok).toBe(false);
      expect(result.calls).toEqual({ upsertMetadata: 1, updateMetadata: 0, readMetadata: 0 });
      const failed = result.fields.filter((f) => !f.ok);
      expect(failed.map((f) => [f.fullName, f.errors[0]?.statusCode])).toEqual([
        ['Contact.ServicePersona__c', 'DUPLICATE_DEVELOPER_NAME'],
      ]);
      expect(result.grants.map((g) => g.fullName)).not.toContain('Contact.ServicePersona__c');
      emulator.componentErrors.clear();
    },
    SLOW,
  );

  it(
    'refreshes an expired session in the middle of the Metadata calls',
    async () => {
      const { emulator } = env;
      const connection = connectTo(emulator);
      emulator.org.fields.get('Lead')?.delete('ServiceSessions__c');
      emulator.inject({ kind: 'expired-session', path: '/services/Soap/m/' });
      const result = await setUpFields(connection);
      expect(result.ok).toBe(true);
      expect(connection.stats.refreshes).toBe(1);
    },
    SLOW,
  );
});

describe('preflight', () => {
  it('refuses field setup without the admin permissions and says how to fix it', async () => {
    const emulator = await startEmulator({ profile: STANDARD_USER });
    try {
      const error = await setUpFields(connectTo(emulator)).catch((e) => e);
      expect(error).toBeInstanceOf(SalesforcePermissionError);
      expect(error.missing).toEqual([
        'Modify All Data',
        'Customize Application',
        'Manage Profiles and Permission Sets',
      ]);
      expect(error.message).toMatch(/Reconnect with a System Administrator/);
      expect(emulator.requests.some((r) => r.soap)).toBe(false);
    } finally {
      await emulator.close();
    }
  });
});
