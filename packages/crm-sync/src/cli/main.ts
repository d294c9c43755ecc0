/** `service-crm`: argument parsing, dispatch, and errors as one line with an exit code. */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import packageJson from '../../package.json' with { type: 'json' };
import { parseReserve } from './api-budget.js';
import { fieldsApply, fieldsExport, fieldsPlan, stage } from './commands.js';
import { loadConfig, type SyncConfig } from './config.js';
import { defaultTokenFile, resolveConnection } from './credentials.js';
import { snapshotCommand } from './crm-source.js';
import { withEnvFile } from './env-file.js';
import { commandHelp, USAGE } from './help.js';
import { reportError } from './json-errors.js';
import { login } from './login.js';
import { CliError, EXIT, type ExitCode, type Io } from './output.js';
import { requestTimeout } from './request-timeout.js';
import { readSecrets, refuseSecretsOnArgv } from './secrets.js';
import { sync } from './sync.js';
import { targetOrgConnection } from './target-org.js';

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
  full: { type: 'boolean' },
  'full-read': { type: 'boolean' },
  snapshot: { type: 'string' },
  'api-reserve': { type: 'string' },
  'request-timeout': { type: 'string' },
  'permission-set': { type: 'string' },
  'convert-existing-fields': { type: 'boolean' },
  account: { type: 'string' },
  out: { type: 'string' },
  port: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean' },
} as const;

function parse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, allowPositionals: true, strict: true });
  } catch (error) {
    throw new CliError(EXIT.usage, `${(error as Error).message}. See \`service-crm --help\`.`);
  }
}

/** What every command runs with: its flags, where it writes, its environment, its org. */
function invocation(
  values: ReturnType<typeof parse>['values'],
  command: string,
  io: Io,
  env: NodeJS.ProcessEnv,
) {
  const json = values.json === true;
  const secrets = () => readSecrets(values, env, io.stdin);
  const tokenFile = values['token-file'] ?? defaultTokenFile(env);
  const unexpected = (list: readonly (string | undefined)[]) => {
    const rest = list.filter((x) => x !== undefined);
    if (rest.length > 0)
      throw new CliError(
        EXIT.usage,
        `Unexpected argument: ${rest.join(' ')}. See \`service-crm ${command} --help\`.`,
      );
  };
  const targetOrg = values['target-org'];
  // The config file's timeout where the command reads one; the flag wins.
  const connection = async (config?: SyncConfig) => {
    const requestTimeoutMs = requestTimeout(
      values['request-timeout'],
      config?.requestTimeoutSeconds,
    );
    return targetOrg
      ? targetOrgConnection(targetOrg, { apiVersion: values['api-version'], requestTimeoutMs })
      : resolveConnection(values, await secrets(), env, requestTimeoutMs, io.err);
  };
  return { values, io, env, json, secrets, tokenFile, unexpected, targetOrg, connection };
}

type Invocation = ReturnType<typeof invocation>;

/** `service-crm login`. */
async function loginCommand({
  values,
  io,
  env,
  json,
  secrets,
  tokenFile,
  targetOrg,
}: Invocation): Promise<ExitCode> {
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
      clientSecret: (await secrets())['client-secret'],
      loginUrl: values['login-url'] ?? env.SF_LOGIN_URL,
      port,
      tokenFile,
      json,
      openBrowser: values['no-browser'] !== true,
      env,
    },
    io,
  );
  return EXIT.ok;
}

/** `service-crm sync`. */
async function syncCommand({
  values,
  io,
  json,
  tokenFile,
  connection,
}: Invocation): Promise<ExitCode> {
  if (!values.events) throw new CliError(EXIT.usage, 'sync needs --events FILE.ndjson');
  const config = await loadConfig(values.config);
  if (values.snapshot && !values['dry-run'])
    throw new CliError(EXIT.usage, '--snapshot plans offline: use it with --dry-run');
  return sync(values.snapshot ? undefined : await connection(config), io, {
    events: values.events,
    dryRun: values['dry-run'] === true,
    json,
    journal: values.journal ?? join(tokenFile, '..', 'sync-journal.json'),
    config,
    delta: {
      snapshot: values.snapshot,
      fullRead: values['full-read'] === true,
      full: values.full === true,
      apiReserve: parseReserve(values['api-reserve']),
      tokenFile,
      config,
    },
  });
}

async function run(argv: readonly string[], io: Io, env: NodeJS.ProcessEnv): Promise<ExitCode> {
  const { values, positionals } = parse(argv);
  const [command, sub, ...extra] = positionals;
  const json = values.json === true;
  refuseSecretsOnArgv(values);
  if (values.version) {
    io.out(json ? JSON.stringify({ version: packageJson.version }) : packageJson.version);
    return EXIT.ok;
  }
  if (values.help || command === undefined || command === 'help') {
    io.out(help(command === 'help' ? positionals.slice(1) : positionals));
    return EXIT.ok;
  }
  const context = invocation(values, command, io, env);
  const { unexpected, connection, tokenFile } = context;
  switch (command) {
    case 'login':
      unexpected([sub, ...extra]);
      return loginCommand(context);
    case 'fields': {
      unexpected(extra);
      const options = {
        json,
        permissionSet: values['permission-set'],
        convertExistingFields: values['convert-existing-fields'] === true,
      };
      if (sub === 'plan') {
        const config = values.config === undefined ? undefined : await loadConfig(values.config);
        const mappings = config?.settings.mappings;
        return fieldsPlan(await connection(config), io, { ...options, mappings });
      }
      if (sub === 'apply') return fieldsApply(await connection(), io, options);
      if (sub === 'export') return fieldsExport(values.out ?? 'service-fields', io, json);
      throw new CliError(
        EXIT.usage,
        `fields needs one of plan, apply, export${sub ? ` (got ${sub})` : ''}. See \`service-crm fields --help\`.`,
      );
    }
    case 'stage':
      unexpected([sub, ...extra]);
      return stage(await connection(), io, { account: values.account, json });
    case 'sync':
      unexpected([sub, ...extra]);
      return syncCommand(context);
    case 'snapshot': {
      unexpected([sub, ...extra]);
      const config = await loadConfig(values.config);
      return snapshotCommand(await connection(config), io, {
        out: values.out ?? 'crm-snapshot.json',
        fullRead: values['full-read'] === true,
        tokenFile,
        config,
        json,
      });
    }
    default:
      throw new CliError(EXIT.usage, `Unknown command ${command}. See \`service-crm --help\`.`);
  }
}

/** The help for `words` (`fields plan`): the command's own, or the overview. */
function help(words: readonly string[]): string {
  const [command, sub] = words;
  if (command === undefined) return USAGE;
  const text = commandHelp(`${command} ${sub}`) ?? commandHelp(command);
  if (text === undefined)
    throw new CliError(EXIT.usage, `Unknown command ${command}. See \`service-crm --help\`.`);
  return text;
}

/**
 * Runs the command (with the variables of a `.env` file in the current directory that `env` does
 * not set); reports an error as one line (or a JSON object with `--json`); returns the exit code.
 */
export async function main(
  argv: readonly string[],
  io: Io,
  env: NodeJS.ProcessEnv = process.env,
): Promise<ExitCode> {
  try {
    return await run(argv, io, withEnvFile(env));
  } catch (error) {
    // Also when the arguments did not parse: --json anywhere asks for a JSON error.
    return reportError(error, io, argv.includes('--json'));
  }
}
