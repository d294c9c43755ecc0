// The calls every runtime makes through the installed @service/lookup-client: a lookup, a typed
// 404, a typed 401, a retry after a 503, and a timeout. Runtime-neutral on purpose: each runtime's
// entry loads the package its own way and hands the module in. Typed with JSDoc so the TypeScript
// rows check it against the package's declarations.

/**
 * @typedef {object} Servers
 * @property {string} baseUrl `service-lookup serve`
 * @property {string} flakyUrl answers 503 to its first request, then forwards to `baseUrl`
 * @property {string} stallUrl accepts requests and never answers
 * @property {string} key a secret key `service-lookup serve` accepts
 */

/** @typedef {{ check: string, ok: boolean, detail: string }} CheckResult */

const WRONG_KEY = 'sk_live_not_a_key_of_this_server_0000000';

/**
 * Runs every check; one result each, a failure described rather than thrown.
 * @param {typeof import('@service/lookup-client')} lib
 * @param {Servers} servers
 * @param {{ dangerouslyAllowBrowser?: boolean }} [options]
 * @returns {Promise<CheckResult[]>}
 */
export async function runChecks(lib, servers, options = {}) {
  /** @param {NonNullable<ConstructorParameters<typeof lib.LookupClient>[0]>} more */
  const client = (more) =>
    new lib.LookupClient({ baseUrl: servers.baseUrl, secretKey: servers.key, ...options, ...more });
  /** @type {Record<string, () => Promise<string>>} */
  const checks = {
    async lookup() {
      const { company, contacts } = await client({}).lookup({ domain: 'acme.com' });
      expect(company.name === 'Acme Corp', `acme.com answered ${JSON.stringify(company)}`);
      return `200, ${contacts.length} contacts`;
    },
    async 'typed 404'() {
      const error = await rejection(client({}).lookup({ domain: 'unknown.example' }));
      expect(error instanceof lib.NotFoundError, `rejected with ${describe(error)}`);
      return `${describe(error)}`;
    },
    async 'typed 401'() {
      const error = await rejection(
        client({ secretKey: WRONG_KEY }).lookup({ domain: 'acme.com' }),
      );
      expect(error instanceof lib.UnauthorizedError, `rejected with ${describe(error)}`);
      return `${describe(error)}`;
    },
    async 'retry after 503'() {
      let retries = 0;
      const flaky = client({
        baseUrl: servers.flakyUrl,
        hooks: { beforeRetry: [() => void retries++] },
      });
      const { company } = await flaky.lookup({ domain: 'acme.com' });
      expect(retries === 1, `answered after ${retries} retries, not 1`);
      return `200 for ${company.domain} after 1 retry`;
    },
    async timeout() {
      const stalled = client({ baseUrl: servers.stallUrl, timeout: 300, maxRetries: 0 });
      const error = await rejection(stalled.lookup({ domain: 'acme.com' }));
      expect(error instanceof lib.TimeoutError, `rejected with ${describe(error)}`);
      return `${describe(error)}`;
    },
  };
  /** @type {CheckResult[]} */
  const results = [];
  for (const [check, run] of Object.entries(checks)) {
    try {
      results.push({ check, ok: true, detail: await run() });
    } catch (error) {
      results.push({ check, ok: false, detail: describe(error) });
    }
  }
  return results;
}

/**
 * The entry of a runtime with a command line (Node.js, Bun, Deno): the servers come as JSON in
 * the first argument, the results go out as one JSON line, and a failed check sets the exit code.
 * @param {typeof import('@service/lookup-client')} lib
 */
export async function runFromCommandLine(lib) {
  /** @type {{ process?: { argv: string[], exitCode?: number }, Deno?: { args: string[], exitCode: number } }} */
  const host = /** @type {any} */ (globalThis);
  const argument = host.process?.argv[2] ?? host.Deno?.args[0] ?? '';
  const results = await runChecks(lib, JSON.parse(argument));
  console.log(JSON.stringify(results));
  if (results.some((result) => !result.ok)) {
    if (host.process) host.process.exitCode = 1;
    else if (host.Deno) host.Deno.exitCode = 1;
  }
}

/** @param {Promise<unknown>} promise */
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('the call resolved; a rejection was expected');
}

/** @param {unknown} error */
function describe(error) {
  if (!(error instanceof Error)) return String(error);
  const { code, status } = /** @type {{ code?: string, status?: number }} */ (error);
  return [error.name, code, status, error.message].filter((part) => part !== undefined).join(' ');
}

/**
 * @param {boolean} ok
 * @param {string} message
 * @returns {asserts ok}
 */
function expect(ok, message) {
  if (!ok) throw new Error(message);
}
