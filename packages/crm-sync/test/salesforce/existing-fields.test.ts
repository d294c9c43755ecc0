// Service fields an admin already made otherwise, and mapped fields of the wrong type: `fields
// apply` leaves the first (unless told to convert them, keeping what the admin set), `fields
// plan` refuses the second. Run through the command's own entry, in this process.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Emulator, seedCustomField, startEmulator } from '@service/salesforce-emulator';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { main } from '../../src/cli/main.js';
import { customFields } from '../../src/index.js';

// The emulator validates every Metadata envelope against Salesforce's XSD (xmllint in wasm).
const SLOW = 60_000;

let emulator: Emulator;
let home: string;
beforeEach(async () => {
  emulator = await startEmulator();
  home = await mkdtemp(join(tmpdir(), 'existing-fields-'));
});
afterEach(async () => {
  expect(emulator.schemaErrors).toEqual([]);
  await emulator.close();
  await rm(home, { recursive: true, force: true });
});

/** `service-crm ...args` against the emulator: its exit code and what it printed. */
async function serviceCrm(...args: string[]) {
  const out: string[] = [];
  const { instanceUrl, accessToken } = emulator.issueTokens();
  const code = await main(
    args,
    {
      out: (line) => out.push(line),
      err: (line) => out.push(line),
      progress: () => {},
      stdin: async () => '',
    },
    { SF_INSTANCE_URL: instanceUrl, SF_ACCESS_TOKEN: accessToken, SERVICE_CRM_HOME: home },
  );
  return { code, stdout: out.join('\n') };
}

/** `Account.ServiceSessions__c` as an admin made it by hand: Text, with help text and history. */
function handMadeSessions(): void {
  seedCustomField(emulator.org, {
    object: 'Account',
    name: 'ServiceSessions__c',
    label: 'Sessions',
    type: 'string',
    length: 255,
    attributes: {
      description: 'Typed in by the sales team',
      inlineHelpText: 'Visits the rep counted',
      trackHistory: 'true',
    },
  });
  emulator.org.insert('Account', { Name: 'Acme', ServiceSessions__c: '12' });
  emulator.org.insert('Account', { Name: 'Globex', ServiceSessions__c: 'about twelve' });
}

const sessions = () => [...emulator.org.table('Account').values()].map((a) => a.ServiceSessions__c);
const upserted = (fullName: string) =>
  emulator.requests.filter(
    (r) => r.soap?.operation === 'upsertMetadata' && r.body.includes(`>${fullName}<`),
  );

describe('fields apply on an org that has a service field already', () => {
  it(
    'leaves a hand-made Text field, reports what converting costs, applies the others and exits 4',
    async () => {
      handMadeSessions();
      const { code, stdout } = await serviceCrm('fields', 'apply');
      expect(code).toBe(4);
      expect(stdout).toContain(
        'leave Account.ServiceSessions__c: it is Text(255), ours Number(18, 0); converting Text to Number deletes values that are not numbers; a field mapped for lead conversion cannot change type',
      );
      expect(upserted('Account.ServiceSessions__c')).toEqual([]);
      const field = emulator.org.fields.get('Account')?.get('ServiceSessions__c');
      expect(field?.type).toBe('string');
      expect(sessions()).toEqual(['12', 'about twelve']);
      expect(emulator.org.customFieldAttributes.get('Account.ServiceSessions__c')).toMatchObject({
        inlineHelpText: 'Visits the rep counted',
      });
      // The other 60 are created.
      const others = customFields.filter((f) => f.fullName !== 'Account.ServiceSessions__c');
      for (const f of others)
        expect(emulator.org.fields.get(f.object)?.get(f.apiName)?.type, f.fullName).toBeDefined();
      expect(stdout).toMatch(
        /Created 60 fields, updated 0, .*\n.*Left 1 field as the org has them/,
      );
    },
    SLOW,
  );

  it(
    'never rewrites a field whose label alone differs',
    async () => {
      expect((await serviceCrm('fields', 'apply')).code).toBe(0);
      const field = emulator.org.fields.get('Account')?.get('ServiceSessions__c');
      if (field) field.label = 'Sessions (from the website)';
      emulator.org.customFieldAttributes.set('Account.ServiceSessions__c', {
        inlineHelpText: 'Visits the rep counted',
      });
      const { code, stdout } = await serviceCrm('fields', 'apply');
      expect(code).toBe(0);
      expect(stdout).toContain(
        'keep Account.ServiceSessions__c: labelled "Sessions (from the website)" in the org',
      );
      expect(upserted('Account.ServiceSessions__c')).toHaveLength(1); // the first run's create
      expect(emulator.org.customFieldAttributes.get('Account.ServiceSessions__c')).toEqual({
        inlineHelpText: 'Visits the rep counted',
      });
    },
    SLOW,
  );

  it(
    'with --convert-existing-fields converts it and keeps its help text, description and history tracking',
    async () => {
      handMadeSessions();
      const { code, stdout } = await serviceCrm('fields', 'apply', '--convert-existing-fields');
      expect(code).toBe(0);
      expect(stdout).toMatch(/Created 60 fields, updated 1, /);
      expect(emulator.org.fields.get('Account')?.get('ServiceSessions__c')?.type).toBe('double');
      // The component was read before it was replaced, and what the admin set sent back.
      const soap = emulator.requests.filter((r) => r.soap).map((r) => r.soap?.operation);
      expect(soap.indexOf('readMetadata')).toBeLessThan(soap.indexOf('upsertMetadata'));
      expect(emulator.org.customFieldAttributes.get('Account.ServiceSessions__c')).toMatchObject({
        description: 'Typed in by the sales team',
        inlineHelpText: 'Visits the rep counted',
        trackHistory: 'true',
      });
      expect(emulator.org.fields.get('Account')?.get('ServiceSessions__c')?.label).toBe('Sessions');
      // Salesforce converts what it can; "about twelve" is no number and is lost.
      expect(sessions()).toEqual([12, null]);
    },
    SLOW,
  );
});

describe('fields plan with mappings', () => {
  it(
    'refuses a mapped field whose type cannot take what the sync writes',
    async () => {
      const profileId = emulator.org.profileIdOf('Admin') ?? '';
      const made = (object: string, name: string, type: 'string' | 'boolean' | 'double') => {
        seedCustomField(emulator.org, {
          object,
          name,
          label: name,
          type,
          length: type === 'string' ? 10 : 0,
          precision: type === 'double' ? 18 : 0,
        });
        emulator.org.setFieldPermission(profileId, `${object}.${name}`, true, true);
      };
      made('Account', 'Visits__c', 'string');
      made('Lead', 'Seen__c', 'boolean');
      made('Contact', 'Pages__c', 'double');
      const config = join(home, 'config.json');
      await writeFile(
        config,
        JSON.stringify({
          settings: {
            mappings: [
              { object: 'Account', apiName: 'Visits__c', source: 'sessions', trigger: 'ANY' },
              { object: 'Lead', apiName: 'Seen__c', source: 'firstSeen', trigger: 'ANY' },
              { object: 'Contact', apiName: 'Pages__c', source: 'pageViews', trigger: 'ANY' },
              { object: 'Lead', apiName: 'Nowhere__c', source: 'title', trigger: 'ANY' },
            ],
          },
        }),
      );
      const { code, stdout } = await serviceCrm('fields', 'plan', '--config', config);
      expect(code).toBe(4);
      const refused = stdout.split('\n').filter((l) => l.startsWith('refuse mapping'));
      expect(refused).toEqual([
        'refuse mapping Account.Visits__c: it is Text(10), the sync would write a number (sessions): a Text(10) field takes no number',
        'refuse mapping Lead.Seen__c: it is Checkbox, the sync would write a date and time (firstSeen): a Checkbox field takes no date and time',
        'refuse mapping Lead.Nowhere__c: it is missing, the sync would write text (title): the org has no such field, or the connected user cannot see it',
      ]);
      expect(emulator.requests.some((r) => r.soap)).toBe(false);
    },
    SLOW,
  );
});
