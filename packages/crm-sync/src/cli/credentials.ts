/**
 * Where the connection comes from: flags, then the Salesforce CLI's environment names, then the
 * token file `login` wrote (readable by the user only). A refreshed access token is written
 * back, so the stored refresh token is reused run after run instead of reconnecting (Salesforce
 * keeps only a few refresh tokens per user and app).
 */
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { connect, type SalesforceConnection } from '../salesforce/connection.js';
import { writePrivateFile } from '../salesforce/private-file.js';
import { CliError, EXIT } from './output.js';

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

export async function saveTokens(path: string, tokens: StoredTokens): Promise<void> {
  await writePrivateFile(path, `${JSON.stringify(tokens, null, 2)}\n`);
}

async function loadTokens(path: string): Promise<StoredTokens | undefined> {
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
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    value = undefined; // not JSON: damaged like a file of the wrong shape
  }
  const parsed = StoredTokens.safeParse(value);
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
  readonly 'access-token'?: string | undefined;
  readonly 'refresh-token'?: string | undefined;
  readonly 'client-id'?: string | undefined;
  readonly 'client-secret'?: string | undefined;
  readonly 'login-url'?: string | undefined;
  readonly 'api-version'?: string | undefined;
  readonly 'token-file'?: string | undefined;
}

/** A connection from flags, the environment or the token file, in that order. */
export async function resolveConnection(
  flags: ConnectionFlags,
  env: NodeJS.ProcessEnv,
): Promise<SalesforceConnection> {
  const tokenFile = flags['token-file'] ?? defaultTokenFile(env);
  const explicit = {
    instanceUrl: flags['instance-url'] ?? env.SF_INSTANCE_URL,
    accessToken: flags['access-token'] ?? env.SF_ACCESS_TOKEN,
    refreshToken: flags['refresh-token'] ?? env.SF_REFRESH_TOKEN,
    clientId: flags['client-id'] ?? env.SF_CLIENT_ID,
    clientSecret: flags['client-secret'] ?? env.SF_CLIENT_SECRET,
    loginUrl: flags['login-url'] ?? env.SF_LOGIN_URL,
  };
  const stored =
    explicit.instanceUrl && explicit.accessToken ? undefined : await loadTokens(tokenFile);
  const instanceUrl = explicit.instanceUrl ?? stored?.instanceUrl;
  const accessToken = explicit.accessToken ?? stored?.accessToken;
  if (!instanceUrl || !accessToken) {
    throw new CliError(
      EXIT.auth,
      'Not connected: run `service-crm login`, or pass --instance-url and --access-token (or set SF_INSTANCE_URL and SF_ACCESS_TOKEN)',
    );
  }
  const fromFile = stored !== undefined;
  return connect({
    instanceUrl,
    accessToken,
    refreshToken: explicit.refreshToken ?? stored?.refreshToken,
    clientId: explicit.clientId ?? stored?.clientId,
    clientSecret: explicit.clientSecret ?? stored?.clientSecret,
    loginUrl: explicit.loginUrl ?? stored?.loginUrl,
    apiVersion: flags['api-version'],
    ...(fromFile
      ? {
          onRefresh: (session: { accessToken: string; instanceUrl: string }) =>
            saveTokens(tokenFile, { ...stored, ...session }),
        }
      : {}),
  });
}
