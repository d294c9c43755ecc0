/** `service-crm`: argument parsing, dispatch, and errors as one line with an exit code. */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { SalesforceError, SalesforcePermissionError } from '../salesforce/errors.js';
import { fieldsApply, fieldsExport, fieldsPlan, stage, sync } from './commands.js';
import { loadConfig } from './config.js';
import { defaultTokenFile, resolveConnection } from './credentials.js';
import { login } from './login.js';
import { CliError, EXIT, type ExitCode, type Io } from './output.js';
import { targetOrgConnection } from './target-org.js';

const USAGE = `Usage: service-crm <command> [options]

Commands:
  login [--no-browser]        Connect an org: opens your browser to log in and allow access (or
                              only prints the URL); tokens are saved for later runs
  fields plan                 Show which Service fields and permissions field setup would change
  fields apply                Create or update the Service fields and grant them on your profile
  fields export [--out DIR]   Write the fields as source format (package.xml, permission set)
  stage [--account ID]        Pipeline Stage of every Account (or one)
  sync --events FILE.ndjson   Plan and apply a sync of observed activity [--dry-run]

Connection (default: the token file written by login):
  --instance-url URL  --access-token TOKEN   or SF_INSTANCE_URL, SF_ACCESS_TOKEN
  --refresh-token T  --client-id ID  --client-secret S  --login-url production|sandbox|HOST
                                              or SF_REFRESH_TOKEN, SF_CLIENT_ID, SF_CLIENT_SECRET, SF_LOGIN_URL
  --api-version 59.0   --token-file PATH (default ~/.config/service-crm/tokens.json)
  --target-org ALIAS   use an sf CLI login (sf org login web --alias ALIAS); needs @salesforce/core

Options:
  --config FILE    plan settings: export settings, motions, mappings (JSON)
  --journal FILE   where sync remembers finished steps to resume (default next to the token file)
  --port N         login: loopback port of the redirect (default 1717)
  --json           machine-readable output
  -h, --help

Exit codes: 0 ok, 2 usage, 3 auth (log in again), 4 partial failure, 5 stopped at the API limit
(run again later to resume), 6 missing permissions, 1 unexpected.`;

const OPTIONS = {
  'instance-url': { type: 'string' },
  'access-token': { type: 'string' },
  'refresh-token': { type: 'string' },
  'client-id': { type: 'string' },
  'client-secret': { type: 'string' },
  'login-url': { type: 'string' },
  'api-version': { type: 'string' },
  'token-file': { type: 'string' },
  'target-org': { type: 'string' },
  'no-browser': { type: 'boolean' },
  config: { type: 'string' },
  journal: { type: 'string' },
  events: { type: 'string' },
  'dry-run': { type: 'boolean' },
  account: { type: 'string' },
  out: { type: 'string' },
  port: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(EXIT.usage, `${(error as Error).message}. See \`service-crm --help\`.`);
  }
}

async function run(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv): Promise<ExitCode> {
  const { values, positionals } = parse(argv);
  const [command, sub, ...extra] = positionals;
  if (values.help || command === undefined || command === 'help') {
    io.out(USAGE);
    return EXIT.ok;
  }
  const json = values.json === true;
  const tokenFile = values['token-file'] ?? defaultTokenFile(env);
  const unexpected = (list: readonly (string | undefined)[]) => {
    const rest = list.filter((x) => x !== undefined);
    if (rest.length > 0)
      throw new CliError(
        EXIT.usage,
        `Unexpected argument: ${rest.join(' ')}. See \`service-crm --help\`.`,
      );
  };
  const targetOrg = values['target-org'];
  const connection = () =>
    targetOrg
      ? targetOrgConnection(targetOrg, { apiVersion: values['api-version'] })
      : resolveConnection(values, env);
  switch (command) {
    case 'login': {
      unexpected([sub, ...extra]);
      if (targetOrg)
        throw new CliError(
          EXIT.usage,
          'login connects service-crm itself; --target-org uses an sf CLI login instead (log in with `sf org login web`): use one or the other',
        );
      const clientId = values['client-id'] ?? env.SF_CLIENT_ID;
      if (!clientId)
        throw new CliError(
          EXIT.usage,
          'login needs the connected app consumer key: --client-id ID (or SF_CLIENT_ID)',
        );
      const port = Number(values.port ?? 1717);
      if (!Number.isInteger(port) || port < 0 || port > 65535)
        throw new CliError(EXIT.usage, `--port ${values.port} is not a port number`);
      await login(
        {
          clientId,
          clientSecret: values['client-secret'] ?? env.SF_CLIENT_SECRET,
          loginUrl: values['login-url'] ?? env.SF_LOGIN_URL,
          port,
          tokenFile,
          openBrowser: values['no-browser'] !== true,
          env,
        },
        io,
      );
      return EXIT.ok;
    }
    case 'fields': {
      unexpected(extra);
      if (sub === 'plan') return fieldsPlan(await connection(), io, json);
      if (sub === 'apply') return fieldsApply(await connection(), io, json);
      if (sub === 'export') return fieldsExport(values.out ?? 'service-fields', io);
      throw new CliError(
        EXIT.usage,
        `fields needs one of plan, apply, export${sub ? ` (got ${sub})` : ''}`,
      );
    }
    case 'stage':
      unexpected([sub, ...extra]);
      return stage(await connection(), io, { account: values.account, json });
    case 'sync': {
      unexpected([sub, ...extra]);
      if (!values.events) throw new CliError(EXIT.usage, 'sync needs --events FILE.ndjson');
      const config = await loadConfig(values.config);
      return sync(await connection(), io, {
        events: values.events,
        dryRun: values['dry-run'] === true,
        json,
        journal: values.journal ?? join(tokenFile, '..', 'sync-journal.json'),
        config,
      });
    }
    default:
      throw new CliError(EXIT.usage, `Unknown command ${command}. See \`service-crm --help\`.`);
  }
}

/** Runs the command; prints one line for an error; returns the exit code. */
export async function main(
  argv: readonly string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExitCode> {
  try {
    return await run(argv, io, env);
  } catch (error) {
    const [code, message] = describe(error);
    io.err(`service-crm: ${message}`);
    return code;
  }
}

function describe(error: unknown): [ExitCode, string] {
  if (error instanceof CliError) return [error.exitCode, error.message];
  if (error instanceof SalesforcePermissionError) return [EXIT.permissions, error.message];
  if (error instanceof SalesforceError) {
    switch (error.code) {
      case 'auth_failed':
      case 'session_expired':
        return [
          EXIT.auth,
          `${error.message}${error.message.includes('Log in again') ? '' : ' Run `service-crm login` again.'}`,
        ];
      case 'api_limit':
        return [EXIT.apiLimit, error.message];
      case 'invalid_options':
        return [EXIT.usage, error.message];
      case 'network':
        return [
          EXIT.internal,
          `${error.message}. Check --instance-url and your network, then retry.`,
        ];
      default:
        return [EXIT.internal, error.message];
    }
  }
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return [EXIT.internal, `unexpected error: ${message}`];
}
