#!/usr/bin/env node
// `salesforce-emulator`: an org on loopback until Ctrl-C, its session printed as the
// SF_INSTANCE_URL and SF_ACCESS_TOKEN lines service-crm (and the sf CLI) read from the environment.
// (--write-env, not --env-file: Node.js takes that flag from the whole command line.)
import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ORG_PRESETS, type OrgBehaviours, type OrgPreset, presetOptions } from './presets.ts';
import { SeedFileError, seedFromFile } from './seed-file.ts';
import { startEmulator } from './server.ts';

/** The behaviours switched by `--[no-]NAME`, by flag. */
const SWITCHES = {
  'lead-assignment-rule': 'leadAssignmentRule',
  'field-lengths': 'fieldLengths',
  'duplicate-rules': 'duplicateRules',
  'throwing-trigger': 'throwingTrigger',
  'state-country-picklists': 'stateCountryPicklists',
  'email-format': 'emailFormat',
  'limited-sharing': 'limitedSharing',
  'person-accounts': 'personAccounts',
  'record-types': 'recordTypes',
  'validation-rule': 'validationRule',
} as const satisfies Record<string, keyof OrgBehaviours>;

const USAGE = `Usage: salesforce-emulator [options]

Starts a Salesforce org on 127.0.0.1 and prints its session and its process id:
  SF_INSTANCE_URL=http://127.0.0.1:PORT
  SF_ACCESS_TOKEN=...
  SF_EMULATOR_PID=...

Options:
  --port N                    listen on port N (default: a free port)
  --preset developer|customer a clean developer org (default) or a typical customer's
  --seed FILE                 records to start with (JSON; see the README)
  --write-env FILE            also write those lines to FILE once listening
  --[no-]lead-assignment-rule switch the Lead assignment rule on or off
  --[no-]field-lengths        switch the refusal of over-long text on or off
  --[no-]duplicate-rules      switch the standard duplicate rules on or off
  --chatter-hourly-limit N    feed posts an hour before Chatter answers 503 (0: no limit)
  --[no-]throwing-trigger     a trigger that throws on names holding [trigger-refuses]
  --[no-]state-country-picklists  switch State and Country/Territory Picklists on or off
  --[no-]email-format         switch the refusal of malformed email addresses on or off
  --[no-]limited-sharing      Private sharing: others' records hidden without View All
  --[no-]person-accounts      person accounts among the Accounts
  --[no-]record-types         record types on Account, Contact and Lead
  --[no-]validation-rule      a validation rule: a new Lead needs an Industry
  --help                      this text`;

function fail(message: string): never {
  process.stderr.write(`salesforce-emulator: ${message}\n`);
  process.exit(2);
}

function parse() {
  try {
    return parseArgs({
      allowNegative: true,
      options: {
        port: { type: 'string' },
        preset: { type: 'string', default: 'developer' },
        seed: { type: 'string' },
        'write-env': { type: 'string' },
        'chatter-hourly-limit': { type: 'string' },
        ...Object.fromEntries(Object.keys(SWITCHES).map((flag) => [flag, { type: 'boolean' }])),
        help: { type: 'boolean' },
      },
    }).values;
  } catch (error) {
    return fail(`${(error as Error).message}\n\n${USAGE}`);
  }
}

function readSeed(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    return fail(`cannot read the seed file ${path}: ${(error as Error).message}`);
  }
}

const flags = parse();

/** The behaviours switched on or off by the command line, over the preset's. */
function switched(): Partial<OrgBehaviours> {
  const values = flags as Record<string, unknown>;
  const given = Object.entries(SWITCHES).map(([flag, behaviour]) => [behaviour, values[flag]]);
  return Object.fromEntries(given.filter(([, on]) => on !== undefined));
}
if (flags.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}
const preset = flags.preset as OrgPreset;
if (!ORG_PRESETS.includes(preset)) fail(`--preset is one of ${ORG_PRESETS.join(', ')}`);
const port = flags.port === undefined ? 0 : Number(flags.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) fail('--port is a number from 0 to 65535');
const chatterLimit = flags['chatter-hourly-limit'];
const postsPerHour = chatterLimit === undefined ? undefined : Number(chatterLimit);
if (postsPerHour !== undefined && !(Number.isInteger(postsPerHour) && postsPerHour >= 0))
  fail('--chatter-hourly-limit is a whole number of posts (0: no limit)');
const seed = flags.seed === undefined ? undefined : readSeed(flags.seed);

const emulator = await startEmulator({
  ...presetOptions(preset, {
    ...switched(),
    ...(postsPerHour === undefined ? {} : { chatterHourlyLimit: postsPerHour || false }),
  }),
  port,
}).catch((error: Error) => fail(`cannot listen on port ${port}: ${error.message}`));
if (seed !== undefined) {
  try {
    seedFromFile(emulator.org, seed);
  } catch (error) {
    await emulator.close();
    if (error instanceof SeedFileError) fail(`${flags.seed}: ${error.message}`);
    throw error;
  }
}
const session = emulator.issueTokens();
// The pid stops it from a script: started through npx, `$!` is npm's, which does not pass a
// signal on to the emulator.
const lines = `SF_INSTANCE_URL=${session.instanceUrl}\nSF_ACCESS_TOKEN=${session.accessToken}\nSF_EMULATOR_PID=${process.pid}\n`;
const envFile = flags['write-env'];
if (envFile !== undefined) {
  // Written whole under another name first: a script waiting for the file never reads half of it.
  writeFileSync(`${envFile}.partial`, lines, { mode: 0o600 });
  renameSync(`${envFile}.partial`, envFile);
}
process.stdout.write(lines);
process.stderr.write(`salesforce-emulator: ${preset} org at ${emulator.url}; Ctrl-C stops it\n`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void emulator.close().then(() => process.exit(0)));
}
