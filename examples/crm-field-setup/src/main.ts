/**
 * Salesforce field setup from a script.
 *
 * Always: prints the service's custom fields and writes what an admin needs to review or deploy
 * them to the output folder: the Metadata API envelopes the setup sends, and a source-format
 * export (`.field-meta.xml` files, a permission set, `manifest/package.xml`) for their own tooling.
 * With an org: checks the connecting user's permissions, compares the org with the catalogue, and
 * applies what is missing or different (only plans it with --dry-run). The org comes as a jsforce
 * `Connection`, either way an integrator's script already has one: made from SF_INSTANCE_URL and
 * SF_ACCESS_TOKEN (with SF_REFRESH_TOKEN, SF_CLIENT_ID, SF_CLIENT_SECRET and SF_LOGIN_URL to
 * refresh), or with --target-org ALIAS the one of an `sf` CLI login, from @salesforce/core.
 * `connect(conn)` sends every call of the setup through it.
 *
 *   node src/main.ts [--out DIR] [--dry-run] [--target-org ALIAS]
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Connection } from '@jsforce/jsforce-node';
import {
  buildProfileFieldPermissionsRequest,
  buildUpsertCustomFieldRequests,
  type CustomFieldSpec,
  customFields,
  toSourceFormat,
} from '@service/crm-sync';
import {
  connect,
  SalesforceError,
  SalesforcePermissionError,
  setUpFields,
} from '@service/crm-sync/salesforce';

const { values: flags } = parseArgs({
  options: {
    out: { type: 'string', default: 'field-setup' },
    'dry-run': { type: 'boolean', default: false },
    'target-org': { type: 'string' },
  },
});
const out = path.resolve(flags.out);

const describeType = ({ metadata }: CustomFieldSpec) =>
  metadata.type === 'Number'
    ? `Number(${metadata.precision},${metadata.scale})`
    : metadata.type === 'DateTime'
      ? 'DateTime'
      : `${metadata.type}(${metadata.length})`;

console.log(`The service's ${customFields.length} custom fields:`);
for (const field of customFields) {
  console.log(`  ${field.fullName.padEnd(48)} ${describeType(field).padEnd(20)} ${field.label}`);
}

/** Writes files under `out`, creating folders; returns how many. */
async function writeAll(files: ReadonlyArray<{ path: string; contents: string }>) {
  for (const file of files) {
    const target = path.join(out, file.path);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, file.contents);
  }
  return files.length;
}

// The envelopes on disk carry a placeholder, never a real access token; the profile is the
// System Administrator's (`Admin`): the setup grants on the connecting user's profile instead.
const sessionId = 'REPLACE_WITH_ACCESS_TOKEN';
const envelopes = [
  ...buildUpsertCustomFieldRequests(customFields, { sessionId }),
  buildProfileFieldPermissionsRequest('Admin', customFields, { sessionId }),
].map((request, i) => ({
  path: `envelopes/${String(i + 1).padStart(2, '0')}-${request.operation}.xml`,
  contents: request.body,
}));
const upserts = envelopes.length - 1;
await writeAll(envelopes);
const exported = await writeAll(
  toSourceFormat(customFields).map(({ path: file, contents }) => ({
    path: `source/${file}`,
    contents,
  })),
);
console.log(
  `\nPlan: ${upserts} upsertMetadata calls (at most 10 fields each), then 1 updateMetadata granting ` +
    `read and edit on the connecting user's profile.\nWrote ${envelopes.length} envelopes to ` +
    `${path.join(out, 'envelopes')} and ${exported} source-format files to ${path.join(out, 'source')} ` +
    `(deploy them with your own tooling, e.g. sf project deploy start --manifest manifest/package.xml).`,
);

/** The jsforce Connection a script already has; here from the SF_* variables, or none. */
function jsforceConnection(env = process.env): Connection | undefined {
  const { SF_INSTANCE_URL, SF_ACCESS_TOKEN, SF_REFRESH_TOKEN, SF_CLIENT_ID } = env;
  if (!SF_INSTANCE_URL || !SF_ACCESS_TOKEN) return undefined;
  // With a refresh token and the connected app, jsforce renews an expired session by itself.
  const refresh =
    SF_REFRESH_TOKEN && SF_CLIENT_ID
      ? {
          refreshToken: SF_REFRESH_TOKEN,
          oauth2: {
            clientId: SF_CLIENT_ID,
            ...(env.SF_CLIENT_SECRET ? { clientSecret: env.SF_CLIENT_SECRET } : {}),
            loginUrl: env.SF_LOGIN_URL ?? 'https://login.salesforce.com',
          },
        }
      : {};
  return new Connection({
    instanceUrl: SF_INSTANCE_URL,
    accessToken: SF_ACCESS_TOKEN,
    version: '59.0',
    ...refresh,
  });
}

/**
 * The jsforce Connection of an `sf` CLI login (`sf org login web --alias ALIAS`): @salesforce/core
 * reads the login the sf CLI stored, and its Connection refreshes the session through it.
 */
async function sfCliConnection(alias: string) {
  const { Org } = await import('@salesforce/core');
  try {
    return (await Org.create({ aliasOrUsername: alias })).getConnection();
  } catch (error) {
    console.error(
      `\nNo usable sf CLI login ${alias} (${(error as Error).message.split('\n')[0]}): run sf org login web --alias ${alias}`,
    );
    process.exit(1);
  }
}

const targetOrg = flags['target-org'];
const jsforce = targetOrg ? await sfCliConnection(targetOrg) : jsforceConnection();
const connection = jsforce && connect(jsforce);
if (connection === undefined) {
  console.log(
    '\nNo org: set SF_INSTANCE_URL and SF_ACCESS_TOKEN, or pass --target-org ALIAS, to check and apply this plan.',
  );
} else {
  try {
    const result = await setUpFields(connection, { dryRun: flags['dry-run'] });
    const { plan } = result;
    console.log(`\nOrg ${connection.instanceUrl}, profile ${plan.profileFullName}:`);
    if (plan.upToDate) {
      console.log('  every field exists as the catalogue says and is granted: nothing to change.');
    }
    for (const change of plan.upserts) {
      const detail = change.reason === 'changed' ? ` (${change.differences.join(', ')})` : '';
      console.log(`  ${change.reason.padEnd(8)} ${change.field.fullName}${detail}`);
    }
    if (plan.grants.length > 0) console.log(`  grant    read+edit on ${plan.grants.length} fields`);
    if (flags['dry-run']) {
      console.log('Dry run: nothing was changed.');
    } else if (!plan.upToDate) {
      const failed = [...result.fields, ...result.grants].filter((r) => !r.ok);
      for (const f of failed) {
        console.log(`  FAILED   ${f.fullName}: ${f.errors.map((e) => e.message).join('; ')}`);
      }
      console.log(
        `Applied with ${result.calls.upsertMetadata} upsertMetadata and ${result.calls.updateMetadata} ` +
          `updateMetadata calls: ${result.fields.length - failed.length} of ${result.fields.length} ` +
          `fields and ${result.grants.length} grants processed, ${failed.length} failed.`,
      );
      // The exit codes of `service-crm` (docs/crm-sync/errors.md): 4 partial, 6 permissions.
      if (!result.ok) process.exitCode = 4;
    }
  } catch (error) {
    if (error instanceof SalesforcePermissionError) {
      console.error(
        `\nThe connected user cannot set up fields: missing ${error.missing.join(', ')}.`,
      );
      console.error(error.remedy);
      console.error(`The source-format export for an admin is in ${path.join(out, 'source')}.`);
      process.exitCode = 6;
    } else if (error instanceof SalesforceError) {
      // One line with Salesforce's reason (tokens are never in it), not a stack trace.
      console.error(`\nSalesforce: ${error.message}`);
      process.exitCode = 1;
    } else {
      throw error;
    }
  }
}
