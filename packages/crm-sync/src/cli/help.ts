/**
 * The text of `service-crm --help` and of each command's `--help` (`service-crm fields plan
 * --help`, or `service-crm help fields plan`): its usage, options and examples.
 */

const CONNECTION = `Connection (default: the token file written by \`service-crm login\`):
  SF_INSTANCE_URL + SF_ACCESS_TOKEN   a session from the environment (the Salesforce CLI's names);
                                      SF_REFRESH_TOKEN, SF_CLIENT_ID, SF_CLIENT_SECRET, SF_LOGIN_URL
                                      let it renew itself. Never mixed with the token file.
                                      Also read from a .env file here (the environment wins).
  --instance-url URL                  instead of SF_INSTANCE_URL
  --access-token -                    read the access token from standard input
  --refresh-token -  --client-secret -  the same for these (one of them per run)
  --client-id ID  --login-url production|sandbox|HOST  --api-version 59.0
  --token-file PATH                   default ~/.config/service-crm/tokens.json (mode 0600)
  --target-org ALIAS                  an sf CLI login (sf org login web --alias ALIAS) instead;
                                      needs @salesforce/core installed beside this package
  --request-timeout SECONDS           how long a call to the org waits for its answer (default 60;
                                      requestTimeoutSeconds in the config file)
  Tokens and secrets are never taken as values on the command line, where ps and shell history
  show them.`;

const COMMON = `  --json         machine-readable output on stdout, errors too: {"error":{"code","message"}}
  -h, --help     this help`;

const EXIT_CODES = `Exit codes: 0 ok, 2 usage, 3 auth (log in again), 4 partial failure or a Bulk API job still
running or failed whole (run again later to resume), 5 stopped at the API limit (run again later to resume),
6 missing permissions, 7 refused by the org's policy (login IP ranges or hours, app approval, inactive
user, API off: an admin changes a setting), 1 unexpected.`;

interface CommandHelp {
  /** One line for the overview. */
  readonly title: string;
  readonly usage: string;
  readonly summary: string;
  /** Options of this command, one per line, before the connection and common ones. */
  readonly options?: string;
  /** Whether the command talks to an org (and so takes the connection options). */
  readonly connects: boolean;
  readonly examples: readonly string[];
}

const COMMANDS: Readonly<Record<string, CommandHelp>> = {
  login: {
    title: 'Connect an org (OAuth in your browser); the tokens are saved for later runs',
    usage:
      'service-crm login --client-id ID [--login-url production|sandbox|HOST] [--port 1717] [--no-browser]',
    summary:
      'Connect an org with OAuth in your browser (web server flow, PKCE): the command opens your browser (BROWSER, or the system opener) on the Salesforce login page; log in and choose Allow. The tokens are saved to the token file, readable by you only, and later commands use them.',
    options: `  --client-id ID        the connected app's consumer key (or SF_CLIENT_ID)
  --client-secret -     read the consumer secret from standard input (or SF_CLIENT_SECRET), when
                        the app requires it
  --login-url URL       production (default), sandbox, or your My Domain host
  --port N              loopback port of the redirect http://localhost:N/OauthRedirect (default 1717)
  --no-browser          only print the URL to open (for a remote shell)
  --token-file PATH     where to save the tokens (default ~/.config/service-crm/tokens.json)`,
    connects: false,
    examples: [
      'service-crm login --client-id 3MVG9...',
      'service-crm login --client-id 3MVG9... --login-url sandbox',
    ],
  },
  fields: {
    title: 'Set up the Service custom fields: plan, apply or export',
    usage: 'service-crm fields plan | apply | export',
    summary:
      'Set up the Service custom fields: `plan` shows what would change, `apply` changes it, `export` writes a Salesforce DX project to deploy yourself. See `service-crm fields <plan|apply|export> --help`.',
    connects: false,
    examples: ['service-crm fields plan', 'service-crm fields export --out service-fields'],
  },
  'fields plan': {
    title: 'Show which Service fields and permissions field setup would change',
    usage:
      'service-crm fields plan [--permission-set NAME] [--convert-existing-fields] [--config FILE] [--json]',
    summary:
      'Show which Service fields would be created, which the org has with another type and would be left as they are (with what converting them would cost), and which the profile of the connected user (or the permission set) would be granted. With --config, also check that each mapped field can take what the sync writes to it: a mapping of the wrong type is refused (exit 4). Changes nothing.',
    options: `  --permission-set NAME      plan the grants on this permission set instead of the profile
  --convert-existing-fields  plan converting the fields the org has with another type
  --config FILE              check the settings' mappings against the org's fields`,
    connects: true,
    examples: ['service-crm fields plan', 'service-crm fields plan --json'],
  },
  'fields apply': {
    title: 'Create or update the Service fields and grant them on your profile',
    usage: 'service-crm fields apply [--permission-set NAME] [--convert-existing-fields] [--json]',
    summary:
      'Create the Service fields (Metadata API) and grant read and edit on them to the profile of the connected user. With --permission-set, grant them through that permission set instead (created or updated, and assigned to the connected user): no profile is edited. A field the org already has with another type, length or precision is left as it is and reported with what converting it would cost (exit 4); a different label alone is kept. A second run changes nothing.',
    options: `  --permission-set NAME      grant through this permission set (API name), assigned to you
  --convert-existing-fields  convert the fields the org has with another type, length or
                             precision; their help text, description and history tracking kept`,
    connects: true,
    examples: [
      'service-crm fields apply',
      'service-crm fields apply --permission-set Service_Fields',
    ],
  },
  'fields export': {
    title: 'Write the fields as a Salesforce DX project to deploy with the sf CLI',
    usage: 'service-crm fields export [--out DIR]',
    summary:
      'Write the fields as a Salesforce DX project (sfdx-project.json, force-app/main/default/objects/..., a permission set and manifest/package.xml) and print the `sf` command that deploys it. Needs no org.',
    options: '  --out DIR      the project directory (default service-fields; created if missing)',
    connects: false,
    examples: [
      'service-crm fields export --out service-fields',
      'cd service-fields && sf project deploy start --manifest manifest/package.xml',
    ],
  },
  stage: {
    title: 'The Pipeline Stage of every Account (or one)',
    usage: 'service-crm stage [--account ID] [--json]',
    summary: 'The Pipeline Stage of every Account (or of one) and the reason for it.',
    options: '  --account ID   only this Account',
    connects: true,
    examples: ['service-crm stage', 'service-crm stage --account 001000000000001AAA --json'],
  },
  sync: {
    title: 'Plan and apply a sync of observed activity (--dry-run: write nothing)',
    usage:
      'service-crm sync --events FILE.ndjson [--config FILE] [--dry-run [--snapshot FILE]] [--full] [--full-read] [--api-reserve N] [--journal FILE] [--json]',
    summary:
      'Read the observed activity from the events file, read what changed in the org since the last run (the org snapshot is kept next to the token file), plan the sync and write only the fields whose value changed. Needs @service/lookup-core installed (an optional peer dependency).',
    options: `  --events FILE     NDJSON events (one JSON object a line)
  --config FILE     plan settings: export settings, motions, mappings (JSON)
  --dry-run         print every step and the API budget (calls beside the org's daily limit);
                    write nothing
  --snapshot FILE   with --dry-run: plan offline from a snapshot file (\`service-crm snapshot\`)
  --full            write every planned field, even those the org already holds
  --full-read       read every record, not only those changed since the last run
  --api-reserve N   do not start when the run would leave fewer than N calls today
                    (default 2% of the daily limit, at least 50)
  --journal FILE    where finished steps are remembered to resume (default next to the token file)`,
    connects: true,
    examples: [
      'service-crm sync --events events.ndjson --dry-run',
      'service-crm sync --events events.ndjson --config service-crm.json --json',
      'service-crm sync --events events.ndjson --dry-run --snapshot crm-snapshot.json',
    ],
  },
  snapshot: {
    title: "Write the org's records as a CRM snapshot file (for sync --dry-run --snapshot)",
    usage: 'service-crm snapshot [--out FILE] [--full-read] [--config FILE] [--json]',
    summary:
      "Read the org's Accounts (with their Opportunity facts), Contacts and Leads as a sync reads them, and write them as a CRM snapshot file, to plan offline with `sync --dry-run --snapshot FILE`.",
    options: `  --out FILE     the snapshot file (default crm-snapshot.json; mode 0600)
  --full-read    read every record, not only those changed since the last run
  --config FILE  plan settings: the mappings say which fields to read`,
    connects: true,
    examples: [
      'service-crm snapshot --out crm-snapshot.json',
      'service-crm sync --events events.ndjson --dry-run --snapshot crm-snapshot.json',
    ],
  },
};

export const USAGE = `Usage: service-crm <command> [options]

Commands:
${Object.entries(COMMANDS)
  .filter(([name]) => name !== 'fields')
  .map(([name, c]) => `  ${name.padEnd(15)}${c.title}`)
  .join('\n')}

${CONNECTION}

Options:
${COMMON}
  --version

Run \`service-crm <command> --help\` for a command's options and examples.

${EXIT_CODES}`;

/** `text` in lines of at most 96 characters. */
function wrap(text: string): string {
  const lines = [''];
  for (const word of text.split(' ')) {
    const last = lines.length - 1;
    if (lines[last] && `${lines[last]} ${word}`.length > 96) lines.push(word);
    else lines[last] = lines[last] ? `${lines[last]} ${word}` : word;
  }
  return lines.join('\n');
}

/** The help of `command` (`fields plan`, or `fields` for the group), or undefined if unknown. */
export function commandHelp(command: string): string | undefined {
  const help = COMMANDS[command];
  if (!help) return undefined;
  return [
    `Usage: ${help.usage}`,
    '',
    wrap(help.summary),
    '',
    `Options:\n${help.options ? `${help.options}\n` : ''}${COMMON}`,
    ...(help.connects ? ['', CONNECTION] : []),
    '',
    `Examples:\n${help.examples.map((e) => `  ${e}`).join('\n')}`,
    '',
    EXIT_CODES,
  ].join('\n');
}
