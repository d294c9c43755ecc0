/**
 * service-lookup: serve the lookup over HTTP, or ingest NDJSON event files into a store.
 * `main(argv, io, env)` runs the command in this process and returns its exit code (`EXIT`).
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import { collectDefaultMetrics, Registry } from 'prom-client';
import packageJson from '../../package.json' with { type: 'json' };
import { capConnections, defaultMaxConnections } from '../http/connection-cap.js';
import { createLookupHandler } from '../http/handler.js';
import { withOperationsRoutes } from '../http/health.js';
import { type KeyEntry, parseKeySpec } from '../http/keys.js';
import { createJsonLineLog, describeFailure } from '../http/log.js';
import { toNodeListener } from '../http/node.js';
import { withOpenApiRoute } from '../http/openapi-route.js';
import {
  INGEST_FLAGS,
  INGEST_FLAGS_HELP,
  type IngestSettings,
  type Io,
  ingestFiles,
  ingestSettings,
} from '../ingest/ingest-files.js';
import type { LookupStore } from '../model/types.js';
import type { AnswerCacheOptions } from '../store/cache.js';
import { openEmbeddedStore } from '../store/embedded.js';
import { openPostgresStore } from '../store/postgres.js';
import { shownDatabaseUrl } from './database-url.js';
import { EXIT, type ExitCode } from './exit.js';
import { KeysFileError, readKeysFile } from './keys-file.js';

const HELP = `Usage:
  service-lookup serve [--host 127.0.0.1] [--port 8787] [--events FILE.ndjson ...]
                       [--keys-file PATH] [--data-dir DIR | --database-url URL]
                       [--read-replicas URL] [--max-replay-lag SECONDS]
                       [--rejects FILE] [--max-line-bytes N] [--max-future-skew SECONDS]
                       [--batch-size N]
                       [--cache-mb MB]
                       [--header-timeout SECONDS] [--body-timeout SECONDS] [--rate-limit N]
                       [--max-connections N] [--metrics]
  service-lookup ingest FILE.ndjson ... [--data-dir DIR | --database-url URL]
                       [--rejects FILE] [--max-line-bytes N] [--max-future-skew SECONDS]
                       [--batch-size N]

Options:
  --host HOST           interface to listen on (default 127.0.0.1)
  --port PORT           port to listen on, 0 for any free one (default 8787)
  --events FILE         NDJSON events to ingest before serving (repeatable)
  --keys-file PATH      secret keys, one KEY[=WORKSPACE] a line (default workspace: default;
                        a key's trailing = is its own, a workspace never begins with =);
                        refused unless only its owner may read it (chmod 600)
                        keys are also read from SERVICE_SECRET_KEYS (KEY[=WORKSPACE], comma separated)
  --key KEY[=WORKSPACE] a key on the command line, for tests: every local user sees it in ps
  --data-dir DIR        persist the embedded store in DIR (default: in memory)
  --database-url URL    use a PostgreSQL server instead of the embedded store (default:
                        DATABASE_URL when set and --data-dir is not given); libpq's multi-host
                        form follows a failover: postgres://u@h1,h2/db?target_session_attrs=read-write
                        (pgbouncer=true behind PgBouncer in transaction mode)
  --read-replicas URL   serve lookups from these servers (a multi-host URL, say with
                        target_session_attrs=prefer-standby); ingest stays on --database-url
  --max-replay-lag S    not ready (503 on /readyz) while the standby read from replays more than
                        S seconds behind its primary (default 30)
  --header-timeout S    longest a client may take to send a request's headers (default 10)
  --body-timeout S      longest a client may take to send a request's body (default 10)
  --rate-limit N        lookups per second allowed to each key, more get 429 (default: no limit)
  --max-connections N   open connections held at most; past it the longest idle one is closed,
                        or 503 when none is idle (default 1000, or the open-file limit less 64)
  --metrics             serve GET /metrics (Prometheus text, no key needed: keep it off public
                        routes); GET /healthz and GET /readyz are always served
${INGEST_FLAGS_HELP}
  --cache-mb MB         memory for cached answers (serve; default 256, 0 turns the cache off)
  -h, --help            show this help
  -v, --version         show the version

Exit codes: ${EXIT.ok} done, ${EXIT.failure} runtime failure, ${EXIT.usage} usage error,
  ${EXIT.rejected} ingest finished but rejected lines (the others are stored), ${EXIT.interrupted} interrupted.`;

class UsageError extends Error {}

type Env = Readonly<Record<string, string | undefined>>;

/** The process's own standard output and error. */
const processIo = (): Io => ({
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  tty: process.stderr.isTTY === true,
});

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  events: { type: 'string', multiple: true },
  key: { type: 'string', multiple: true },
  'keys-file': { type: 'string' },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  'read-replicas': { type: 'string' },
  'max-replay-lag': { type: 'string' },
  ...INGEST_FLAGS,
  'cache-mb': { type: 'string' },
  'header-timeout': { type: 'string' },
  'body-timeout': { type: 'string' },
  'rate-limit': { type: 'string' },
  'max-connections': { type: 'string' },
  metrics: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/**
 * `KEY` or `KEY=WORKSPACE` (a key's own `=` padding is never the separator); the message names the
 * position, never the key.
 */
function parseKeys(specs: string[], origin: string): KeyEntry[] {
  return specs.map((spec, i) => {
    const parsed = parseKeySpec(spec);
    if (parsed === undefined)
      throw new UsageError(
        `${origin} #${i + 1} is not a live secret key (sk_live_ + 24 to 504 letters, digits or -._~+/, then any = padding)`,
      );
    return { key: parsed.key, workspace: parsed.workspace };
  });
}

/** `--cache-mb`: the answer cache's byte bound (0 turns it off). */
function parseCache(value: string | undefined): AnswerCacheOptions {
  if (value === undefined) return {};
  if (!/^\d+(\.\d+)?$/.test(value))
    throw new UsageError(`--cache-mb must be a number of megabytes, got "${value}"`);
  return { maxBytes: Math.round(Number(value) * 1024 * 1024) };
}

/**
 * The store the flags name, else `DATABASE_URL`, else an embedded one; `shown` has no password.
 * `cache` bounds the answers a serving store keeps; `ingest` keeps none (`{ maxBytes: 0 }`).
 */
function storeChoice(
  values: Values,
  cache: AnswerCacheOptions,
  env: Env,
): { open(): Promise<LookupStore>; shown: string } {
  const dataDir = values['data-dir'];
  const flagUrl = values['database-url'];
  if (dataDir !== undefined && flagUrl !== undefined) {
    throw new UsageError('--data-dir and --database-url exclude each other');
  }
  // A flag beats the environment: --data-dir opens the embedded store even with DATABASE_URL set.
  const envUrl = dataDir === undefined ? env.DATABASE_URL || undefined : undefined;
  const connectionString = flagUrl ?? envUrl;
  if (connectionString !== undefined) {
    const origin = flagUrl === undefined ? 'DATABASE_URL' : '--database-url';
    let shown: string;
    try {
      shown = shownDatabaseUrl(connectionString);
    } catch (error) {
      throw new UsageError(`${origin} ${(error as Error).message}`);
    }
    const servers = postgresServers(values);
    return {
      open: () => openPostgresStore({ connectionString, cache, ...servers }),
      shown: `PostgreSQL at ${shown}, from ${origin}`,
    };
  }
  for (const flag of ['read-replicas', 'max-replay-lag'] as const)
    if (values[flag] !== undefined)
      throw new UsageError(`--${flag} needs a PostgreSQL store (--database-url or DATABASE_URL)`);
  return {
    open: () => openEmbeddedStore(dataDir === undefined ? { cache } : { dataDir, cache }),
    shown: dataDir === undefined ? 'embedded, in memory' : `embedded, in ${dataDir}`,
  };
}

/** `--read-replicas` and `--max-replay-lag`, checked. */
function postgresServers(values: Values): { readReplicas?: string; maxReplayLagSeconds?: number } {
  const replicas = values['read-replicas'];
  const lag = values['max-replay-lag'];
  if (replicas !== undefined) {
    try {
      shownDatabaseUrl(replicas);
    } catch (error) {
      throw new UsageError(`--read-replicas ${(error as Error).message}`);
    }
  }
  if (lag !== undefined && !/^\d+(\.\d+)?$/.test(lag))
    throw new UsageError(`--max-replay-lag must be a number of seconds, got "${lag}"`);
  return {
    ...(replicas === undefined ? {} : { readReplicas: replicas }),
    ...(lag === undefined ? {} : { maxReplayLagSeconds: Number(lag) }),
  };
}

/** Opens the chosen store; a failure names it, since DATABASE_URL may have chosen it unseen. */
async function openStore(choice: {
  open(): Promise<LookupStore>;
  shown: string;
}): Promise<LookupStore> {
  try {
    return await choice.open();
  } catch (error) {
    throw new Error(`cannot open the store (${choice.shown}): ${describeFailure(error).message}`);
  }
}

/** The ingest flags' settings; a wrong value is a usage error. */
function ingestFlags(values: Values): IngestSettings {
  try {
    return ingestSettings(values);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** What a command runs with: where it writes, its environment, and the signal that stops it. */
interface Run {
  io: Io;
  env: Env;
  stop: AbortSignal;
}

async function ingest(values: Values, files: string[], { io, env, stop }: Run): Promise<ExitCode> {
  if (files.length === 0) throw new UsageError('ingest needs at least one FILE.ndjson');
  const settings = ingestFlags(values);
  const store = await openStore(storeChoice(values, { maxBytes: 0 }, env));
  let rejected: number;
  try {
    rejected = await ingestFiles(store, files, settings, stop, io);
  } finally {
    await store.close();
  }
  if (stop.aborted) return EXIT.interrupted;
  return rejected > 0 ? EXIT.rejected : EXIT.ok;
}

/** A timeout flag in seconds (fractions allowed), as milliseconds. */
function parseSeconds(flag: string, value: string | undefined): number {
  if (value === undefined) return 10_000;
  const seconds = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || seconds <= 0 || seconds > 3600)
    throw new UsageError(
      `--${flag} must be a number of seconds above 0, at most 3600, got "${value}"`,
    );
  return Math.round(seconds * 1000);
}

function parseRateLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const perSecond = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value) || perSecond <= 0)
    throw new UsageError(
      `--rate-limit must be a number of lookups per second above 0, got "${value}"`,
    );
  return perSecond;
}

/** The keys file's specs; one shared with other users is a usage error that says how to fix it. */
async function keysFromFile(path: string): Promise<string[]> {
  try {
    return await readKeysFile(path);
  } catch (error) {
    if (error instanceof KeysFileError) throw new UsageError(error.message);
    throw error;
  }
}

function parseMaxConnections(value: string | undefined): number {
  if (value === undefined) return defaultMaxConnections();
  const max = Number(value);
  if (!/^\d+$/.test(value) || max < 1)
    throw new UsageError(`--max-connections must be a whole number above 0, got "${value}"`);
  return max;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 8787;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new UsageError(`--port must be 0..65535, got "${value}"`);
  return port;
}

async function serve(
  values: Values,
  positionals: string[],
  { io, env, stop }: Run,
): Promise<ExitCode> {
  if (positionals.length > 0)
    throw new UsageError(`serve takes no arguments (got "${positionals[0]}"); use --events FILE`);
  const host = values.host ?? '127.0.0.1';
  const port = parsePort(values.port);
  const headerTimeoutMs = parseSeconds('header-timeout', values['header-timeout']);
  const bodyTimeoutMs = parseSeconds('body-timeout', values['body-timeout']);
  const rateLimit = parseRateLimit(values['rate-limit']);
  const maxConnections = parseMaxConnections(values['max-connections']);
  const fromFlags = parseKeys(values.key ?? [], '--key');
  const fromEnv = parseKeys(
    (env.SERVICE_SECRET_KEYS ?? '').split(/[\s,]+/).filter(Boolean),
    'SERVICE_SECRET_KEYS entry',
  );
  const keysFile = values['keys-file'];
  const fromFile =
    keysFile === undefined ? [] : parseKeys(await keysFromFile(keysFile), `${keysFile} entry`);
  const keys = [...fromFlags, ...fromEnv, ...fromFile];
  if (keys.length === 0)
    throw new UsageError('no keys: set SERVICE_SECRET_KEYS or pass --keys-file PATH');

  const settings = ingestFlags(values);
  const choice = storeChoice(values, parseCache(values['cache-mb']), env);
  const store = await openStore(choice);
  io.out(`store: ${choice.shown}\n`);
  const jsonLog = createJsonLineLog((line) => io.err(line));
  try {
    await ingestFiles(store, values.events ?? [], settings, stop, io);
    if (stop.aborted) return EXIT.interrupted;
    const metrics = values.metrics ? new Registry() : undefined;
    if (metrics !== undefined) collectDefaultMetrics({ register: metrics });
    const handler = createLookupHandler({
      store,
      keys,
      log: jsonLog.log,
      ...(rateLimit === undefined ? {} : { rateLimit }),
      ...(metrics === undefined ? {} : { metrics }),
    });
    const server = createServer(
      {
        headersTimeout: headerTimeoutMs,
        // node's own backstop for a whole request; the listener answers a slow body first (408).
        requestTimeout: headerTimeoutMs + bodyTimeoutMs + 1_000,
        // node checks both timeouts only this often (30 s by default, which let headers take 30 s).
        connectionsCheckingInterval: Math.min(1_000, headerTimeoutMs / 4),
      },
      withOperationsRoutes(withOpenApiRoute(toNodeListener(handler, { bodyTimeoutMs })), {
        store,
        ...(metrics === undefined ? {} : { metrics }),
      }),
    );
    capConnections(server, maxConnections);
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address !== null ? address.port : port;
    const origin = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
    io.out(`listening on ${origin}\n`);
    // Once the command is known to be valid, so a usage error stays the first line of stderr.
    if (fromFlags.length > 0)
      io.err(
        'service-lookup: warning: --key shows the key to every local user (ps); use SERVICE_SECRET_KEYS or --keys-file\n',
      );
    // Never a key (terminals are recorded and shared): the shell reads it from the environment.
    io.out(
      `try: curl -s ${origin}/api/service/lookup -H "Authorization: Bearer $SERVICE_SECRET_KEY" -H 'Content-Type: application/json' -d '{"domain":"acme.com","includeActivity":true}'\n`,
    );
    await new Promise<void>((resolve) =>
      stop.addEventListener('abort', () => resolve(), { once: true }),
    );
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), 5_000);
    await closed;
    clearTimeout(grace);
    return EXIT.ok;
  } finally {
    jsonLog.flush();
    await store.close();
  }
}

/** The command's arguments, run: its exit code. */
async function run(argv: readonly string[], io: Io, env: Env): Promise<ExitCode> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    io.out(`${HELP}\n`);
    return EXIT.ok;
  }
  if (values.version) {
    io.out(`${packageJson.version}\n`);
    return EXIT.ok;
  }
  const [command, ...rest] = positionals;
  const stop = new AbortController();
  const abort = () => stop.abort();
  const signals = ['SIGINT', 'SIGTERM'] as const;
  for (const signal of signals) process.once(signal, abort);
  try {
    const context = { io, env, stop: stop.signal };
    if (command === 'serve') return await serve(values, rest, context);
    if (command === 'ingest') return await ingest(values, rest, context);
    throw new UsageError(
      command === undefined ? 'missing command: serve or ingest' : `unknown command "${command}"`,
    );
  } finally {
    for (const signal of signals) process.off(signal, abort);
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'EACCES') {
    return `cannot read ${(error as { path?: string }).path ?? 'a file'} (${code})`;
  }
  if (code === 'EADDRINUSE') {
    const { port } = error as { port?: number };
    return `port ${port} is already in use: stop what listens there, or choose another with --port`;
  }
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

/**
 * Runs service-lookup with `argv` (the arguments after the command's name) in this process and
 * returns its exit code; a failure is reported as one line on `io.err`, never a stack trace.
 * SIGINT and SIGTERM stop a running command (exit 130) while it runs.
 */
export async function main(
  argv: readonly string[],
  io: Io = processIo(),
  env: Env = process.env,
): Promise<ExitCode> {
  try {
    return await run(argv, io, env);
  } catch (error) {
    const usage =
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS') === true;
    io.err(`service-lookup: ${describe(error)}\n`);
    if (usage) io.err('Run "service-lookup --help" for usage.\n');
    return usage ? EXIT.usage : EXIT.failure;
  }
}
