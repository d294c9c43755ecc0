/**
 * Tokens and the client secret never come from the command line, where `ps` and shell history
 * show them to others: they come from the environment (the Salesforce CLI's names), from standard
 * input (`--access-token -`), or from the token file (credentials.ts). A flag given a value is
 * refused with the reason, and the value is never repeated in the message.
 */
import { CliError, EXIT } from './output.js';

/** Each secret flag and the environment variable that carries the same secret. */
const SECRET_FLAGS = {
  'access-token': 'SF_ACCESS_TOKEN',
  'refresh-token': 'SF_REFRESH_TOKEN',
  'client-secret': 'SF_CLIENT_SECRET',
} as const;

type SecretFlag = keyof typeof SECRET_FLAGS;

export type Secrets = { readonly [flag in SecretFlag]?: string | undefined };

/** The argument that means "read it from standard input". */
const STDIN = '-';

const names = Object.keys(SECRET_FLAGS) as SecretFlag[];

/** Refuses a secret given as a flag's value, before the command does anything. */
export function refuseSecretsOnArgv(flags: Secrets): void {
  for (const name of names) {
    const value = flags[name];
    if (value !== undefined && value !== STDIN) {
      throw new CliError(
        EXIT.usage,
        `--${name} takes no value on the command line, where ps and shell history show it to others: set ${SECRET_FLAGS[name]}, or pass \`--${name} -\` and give it on standard input`,
      );
    }
  }
}

/**
 * The secrets given on this run: a flag's `-` reads standard input (for one flag at most),
 * otherwise the environment variable.
 */
export async function readSecrets(
  flags: Secrets,
  env: NodeJS.ProcessEnv,
  stdin: () => Promise<string>,
): Promise<Secrets> {
  refuseSecretsOnArgv(flags);
  const fromStdin = names.filter((name) => flags[name] === STDIN);
  if (fromStdin.length > 1) {
    throw new CliError(
      EXIT.usage,
      `Only one secret can be read from standard input, not ${fromStdin.map((n) => `--${n}`).join(' and ')}: set the others in the environment`,
    );
  }
  const secrets: Record<string, string | undefined> = {};
  for (const name of names) secrets[name] = env[SECRET_FLAGS[name]] || undefined;
  const [piped] = fromStdin;
  if (piped) {
    const value = (await stdin()).trim();
    if (value === '' || /\s/.test(value)) {
      throw new CliError(
        EXIT.usage,
        `--${piped} -: standard input must hold the ${piped.replace('-', ' ')} alone (it ${value === '' ? 'was empty' : 'has more than one word'})`,
      );
    }
    secrets[piped] = value;
  }
  return secrets;
}
