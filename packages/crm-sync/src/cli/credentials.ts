/**
 * Where the connection comes from: a session given on this run (flags, standard input, the
 * Salesforce CLI's environment names), or else the token file `login` wrote (readable by the user
 * only). A renewed session read from the file is written back, so the stored refresh token is
 * reused run after run instead of reconnecting (Salesforce keeps only a few per user and app).
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { connect, type SalesforceConnection } from '../salesforce/connection/connection.js';
import { keepRenewedLogin, pendingLogin, saveLogin } from './kept-tokens.js';
import { CliError, EXIT } from './output.js';
import type { Secrets } from './secrets.js';

const StoredTokens = z.object({
  instanceUrl: z.url(),
  accessToken: z.string().min(1),
  refreshToken: z.string().min(1).optional(),
  clientId: z.string().min(1).optional(),
  clientSecret: z.string().min(1).optional(),
  loginUrl: z.string().min(1).optional(),
  identityUrl: z.string().optional(),
  organizationId: z.string().optional(),
  userId: z.string().optional(),
});
export type StoredTokens = z.infer<typeof StoredTokens>;

export function defaultTokenFile(env: NodeJS.ProcessEnv): string {
  if (env.SERVICE_CRM_HOME) return join(env.SERVICE_CRM_HOME, 'tokens.json');
  const config = env.XDG_CONFIG_HOME ?? join(homedir(), '.config');
  return join(config, 'service-crm', 'tokens.json');
}

/** The JSON value of `text`, or undefined when it is not JSON (a damaged file). */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const tokenText = (tokens: StoredTokens) => `${JSON.stringify(tokens, null, 2)}\n`;

export async function saveTokens(path: string, tokens: StoredTokens): Promise<void> {
  await saveLogin(path, tokenText(tokens));
}

/**
 * The login of the token file, or the renewed one waiting for it (`kept-tokens.ts`), moved back
 * when the file can now be written.
 */
async function loadTokens(path: string): Promise<StoredTokens | undefined> {
  const pending = await pendingLogin(path);
  if (pending !== undefined) {
    const tokens = StoredTokens.safeParse(parseJson(pending));
    if (tokens.success) {
      await saveLogin(path, pending).catch(() => {}); // still no space: read it from there again
      return tokens.data;
    }
  }
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new CliError(
      EXIT.auth,
      `Cannot read the token file ${path}: ${(error as Error).message}`,
    );
  }
  // Not JSON: damaged like a file of the wrong shape.
  const parsed = StoredTokens.safeParse(parseJson(text));
  if (!parsed.success) {
    throw new CliError(
      EXIT.auth,
      `The token file ${path} is damaged: run \`service-crm login\` again`,
    );
  }
  return parsed.data;
}

export interface ConnectionFlags {
  readonly 'instance-url'?: string | undefined;
  readonly 'client-id'?: string | undefined;
  readonly 'login-url'?: string | undefined;
  readonly 'api-version'?: string | undefined;
  readonly 'token-file'?: string | undefined;
}

/**
 * A connection from a session given on this run (flags, standard input, the environment) or else
 * from the token file, never a mix: a token is not paired with the file's instance or refresh
 * token, and only a session read from the token file is written back to it when renewed.
 */
export async function resolveConnection(
  flags: ConnectionFlags,
  secrets: Secrets,
  env: NodeJS.ProcessEnv,
  requestTimeoutMs?: number,
  warn: (line: string) => void = () => {},
): Promise<SalesforceConnection> {
  const tokenFile = flags['token-file'] ?? defaultTokenFile(env);
  const apiVersion = flags['api-version'];
  const transport = requestTimeoutMs === undefined ? {} : { requestTimeoutMs };
  const app = {
    clientId: flags['client-id'] ?? env.SF_CLIENT_ID,
    clientSecret: secrets['client-secret'],
    loginUrl: flags['login-url'] ?? env.SF_LOGIN_URL,
  };
  const given = {
    instanceUrl: flags['instance-url'] ?? env.SF_INSTANCE_URL,
    accessToken: secrets['access-token'],
    refreshToken: secrets['refresh-token'],
  };
  if (given.instanceUrl || given.accessToken || given.refreshToken) {
    const missing = [
      given.instanceUrl ? [] : ['the instance URL (SF_INSTANCE_URL or --instance-url URL)'],
      given.accessToken ? [] : ['the access token (SF_ACCESS_TOKEN or --access-token -)'],
    ].flat();
    if (flags['token-file'] !== undefined) {
      throw new CliError(
        EXIT.usage,
        `A session is given in the environment or by flags, and --token-file ${tokenFile} too: use one (unset SF_INSTANCE_URL, SF_ACCESS_TOKEN and SF_REFRESH_TOKEN, or leave out --token-file)`,
      );
    }
    if (!given.instanceUrl || !given.accessToken) {
      throw new CliError(
        EXIT.usage,
        `A session given in the environment or by flags needs ${missing.join(' and ')} as well: its parts are never taken from the token file ${tokenFile}. Give both, or neither to use the token file.`,
      );
    }
    return connect({
      ...app,
      ...given,
      instanceUrl: given.instanceUrl,
      accessToken: given.accessToken,
      apiVersion,
      ...transport,
    });
  }
  const stored = await loadTokens(tokenFile);
  if (!stored) {
    throw new CliError(
      EXIT.auth,
      'Not connected: run `service-crm login`, or set SF_INSTANCE_URL and SF_ACCESS_TOKEN',
    );
  }
  return connect({
    instanceUrl: stored.instanceUrl,
    accessToken: stored.accessToken,
    refreshToken: stored.refreshToken,
    // The refresh token belongs to the app that issued it: the file's app, its secret if stored.
    clientId: stored.clientId ?? app.clientId,
    clientSecret: stored.clientSecret ?? app.clientSecret,
    loginUrl: stored.loginUrl ?? app.loginUrl,
    apiVersion,
    ...transport,
    onRefresh: (session) => {
      const renewed = { ...stored, ...session };
      return keepRenewedLogin(tokenFile, tokenText(renewed), renewed.refreshToken, warn);
    },
  });
}
