/**
 * `--target-org ALIAS`: the connection of an `sf` CLI login (`sf org login web --alias ALIAS`),
 * through `@salesforce/core`. That package is an optional peer dependency, loaded here only when
 * the flag is used; its `Connection` is a jsforce `Connection`, so the `sf` CLI's stored tokens
 * and its own refresh (which writes the renewed session back to the `sf` CLI's auth file) apply.
 */
import { DEFAULT_API_VERSION } from '../metadata/requests.js';
import { connect, type SalesforceConnection } from '../salesforce/connection/connection.js';
import { CliError, EXIT } from './output.js';

type SalesforceCore = typeof import('@salesforce/core');
type Org = import('@salesforce/core').Org;

async function loadSalesforceCore(): Promise<SalesforceCore> {
  try {
    return await import('@salesforce/core');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND') {
      throw new CliError(
        EXIT.usage,
        '--target-org uses the sf CLI logins through @salesforce/core, which is not installed: run `npm install @salesforce/core` beside @service/crm-sync, or connect with `service-crm login` instead',
      );
    }
    throw error;
  }
}

/** A connection through the `sf` CLI login named `aliasOrUsername`, at `apiVersion` (59.0). */
export async function targetOrgConnection(
  aliasOrUsername: string,
  options: {
    readonly apiVersion?: string | undefined;
    readonly requestTimeoutMs?: number | undefined;
  } = {},
): Promise<SalesforceConnection> {
  const core = await loadSalesforceCore();
  let org: Org;
  try {
    org = await core.Org.create({ aliasOrUsername });
  } catch (error) {
    const { name, message } = error as Error;
    if (name === 'NamedOrgNotFoundError') {
      throw new CliError(
        EXIT.auth,
        `No sf CLI login is named ${aliasOrUsername}: log in with \`sf org login web --alias ${aliasOrUsername}\` (see \`sf org list\`)`,
      );
    }
    throw new CliError(
      EXIT.auth,
      `The sf CLI login ${aliasOrUsername} cannot be used: ${message.split('\n')[0]}`,
    );
  }
  // Without a version @salesforce/core uses the newest the org serves: pinned to the spec's.
  return connect(org.getConnection(options.apiVersion ?? DEFAULT_API_VERSION), {
    requestTimeoutMs: options.requestTimeoutMs,
  });
}
