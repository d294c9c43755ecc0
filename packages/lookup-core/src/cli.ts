#!/usr/bin/env node
/**
 * service-lookup: serve the lookup over HTTP, or ingest NDJSON event files into a store.
 * Exit codes: 0 done, 1 runtime failure, 2 usage error, 3 ingest rejected lines, 130 interrupted.
 */
import { createServer } from 'node:http';
import { parseArgs } from 'node:util';
import packageJson from '../package.json' with { type: 'json' };
import type { AnswerCacheOptions } from './cache.js';
import { openEmbeddedStore } from './embedded.js';
import { createLookupHandler } from './handler.js';
import {
  EXIT_REJECTED,
  INGEST_FLAGS,
  INGEST_FLAGS_HELP,
  type IngestSettings,
  ingestFiles,
  ingestSettings,
} from './ingest-files.js';
import { isWellFormedKey, type KeyEntry } from './keys.js';
import { toNodeListener } from './node.js';
import { withOpenApiRoute } from './openapi-route.js';
import { openPostgresStore } from './postgres.js';
import type { LookupStore } from './types.js';

const HELP = `Usage:
  service-lookup serve [--host 127.0.0.1] [--port 8787] [--events FILE.ndjson ...]
                       [--key sk_live_...[=WORKSPACE] ...] [--data-dir DIR | --database-url URL]
                       [--rejects FILE] [--max-line-bytes N] [--max-future-skew SECONDS]
                       [--cache-mb MB]
  service-lookup ingest FILE.ndjson ... [--data-dir DIR | --database-url URL]
                       [--rejects FILE] [--max-line-bytes N] [--max-future-skew SECONDS]

Options:
  --host HOST           interface to listen on (default 127.0.0.1)
  --port PORT           port to listen on, 0 for any free one (default 8787)
  --events FILE         NDJSON events to ingest before serving (repeatable)
  --key KEY[=WORKSPACE] a secret key and the workspace it reads (default workspace: default;
                        repeatable); keys are also read from SERVICE_SECRET_KEYS (comma separated)
  --data-dir DIR        persist the embedded store in DIR (default: in memory)
  --database-url URL    use a PostgreSQL server instead of the embedded store
${INGEST_FLAGS_HELP}
  --cache-mb MB         memory for cached answers (serve; default 64, 0 turns the cache off)
  -h, --help            show this help
  -v, --version         show the version

Exit codes: 0 done, 1 runtime failure, 2 usage error,
  ${EXIT_REJECTED} ingest finished but rejected lines (the others are stored), 130 interrupted.`;

class UsageError extends Error {}

const OPTIONS = {
  host: { type: 'string' },
  port: { type: 'string' },
  events: { type: 'string', multiple: true },
  key: { type: 'string', multiple: true },
  'data-dir': { type: 'string' },
  'database-url': { type: 'string' },
  ...INGEST_FLAGS,
  'cache-mb': { type: 'string' },
  help: { type: 'boolean', short: 'h' },
  version: { type: 'boolean', short: 'v' },
} as const;

type Values = ReturnType<
  typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>
>['values'];

/** `KEY` or `KEY=WORKSPACE`; the message names the position, never the key. */
function parseKeys(specs: string[], origin: string): KeyEntry[] {
  return specs.map((spec, i) => {
    const at = spec.indexOf('=');
    const key = (at === -1 ? spec : spec.slice(0, at)).trim();
    const workspace = at === -1 ? 'default' : spec.slice(at + 1).trim();
    if (!isWellFormedKey(key))
      throw new UsageError(
        `${origin} #${i + 1} is not a live secret key (sk_live_ + at least 24 characters)`,
      );
    if (workspace === '') throw new UsageError(`${origin} #${i + 1} names an empty workspace`);
    return { key, workspace };
  });
}

/** `--cache-mb`: the answer cache's byte bound (0 turns it off). */
function parseCache(value: string | undefined): AnswerCacheOptions {
  if (value === undefined) return {};
  if (!/^\d+(\.\d+)?$/.test(value))
    throw new UsageError(`--cache-mb must be a number of megabytes, got "${value}"`);
  return { maxBytes: Math.round(Number(value) * 1024 * 1024) };
}

/** `cache` bounds the answers a serving store keeps; `ingest` keeps none (`{ maxBytes: 0 }`). */
function openStore(values: Values, cache: AnswerCacheOptions): Promise<LookupStore> {
  if (values['data-dir'] !== undefined && values['database-url'] !== undefined) {
    throw new UsageError('--data-dir and --database-url exclude each other');
  }
  if (values['database-url'] !== undefined)
    return openPostgresStore({ connectionString: values['database-url'], cache });
  return openEmbeddedStore(
    values['data-dir'] === undefined ? { cache } : { dataDir: values['data-dir'], cache },
  );
}

/** The ingest flags' settings; a wrong value is a usage error. */
function ingestFlags(values: Values): IngestSettings {
  try {
    return ingestSettings(values);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

async function ingest(values: Values, files: string[], stop: AbortSignal): Promise<number> {
  if (files.length === 0) throw new UsageError('ingest needs at least one FILE.ndjson');
  const settings = ingestFlags(values);
  const store = await openStore(values, { maxBytes: 0 });
  let rejected: number;
  try {
    rejected = await ingestFiles(store, files, settings, stop);
  } finally {
    await store.close();
  }
  if (stop.aborted) return 130;
  return rejected > 0 ? EXIT_REJECTED : 0;
}

function parsePort(value: string | undefined): number {
  if (value === undefined) return 8787;
  const port = Number(value);
  if (!/^\d+$/.test(value) || port > 65535)
    throw new UsageError(`--port must be 0..65535, got "${value}"`);
  return port;
}

async function serve(values: Values, positionals: string[], stop: AbortSignal): Promise<number> {
  if (positionals.length > 0)
    throw new UsageError(`serve takes no arguments (got "${positionals[0]}"); use --events FILE`);
  const host = values.host ?? '127.0.0.1';
  const port = parsePort(values.port);
  const fromFlags = parseKeys(values.key ?? [], '--key');
  const fromEnv = parseKeys(
    (process.env.SERVICE_SECRET_KEYS ?? '').split(/[\s,]+/).filter(Boolean),
    'SERVICE_SECRET_KEYS entry',
  );
  const keys = [...fromFlags, ...fromEnv];
  if (keys.length === 0)
    throw new UsageError('no keys: pass --key sk_live_...[=WORKSPACE] or set SERVICE_SECRET_KEYS');

  const settings = ingestFlags(values);
  const store = await openStore(values, parseCache(values['cache-mb']));
  try {
    await ingestFiles(store, values.events ?? [], settings, stop);
    if (stop.aborted) return 130;
    const handler = createLookupHandler({
      store,
      keys,
      onError: (error, { requestId }) =>
        console.error(
          `service-lookup: ${error instanceof Error ? error.name : 'error'} while answering lookup ${requestId}`,
        ),
    });
    const server = createServer(withOpenApiRoute(toNodeListener(handler)));
    server.headersTimeout = 10_000;
    server.requestTimeout = 30_000;
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, host, () => resolve());
    });
    const address = server.address();
    const actualPort = typeof address === 'object' && address !== null ? address.port : port;
    const origin = `http://${host.includes(':') ? `[${host}]` : host}:${actualPort}`;
    console.log(`listening on ${origin}`);
    // A key typed on the command line is already in the shell's history; one from the environment is never printed.
    const shown = fromFlags[0]?.key ?? '$SERVICE_SECRET_KEY';
    console.log(
      `try: curl -s ${origin}/api/service/lookup -H 'Authorization: Bearer ${shown}' -H 'Content-Type: application/json' -d '{"domain":"acme.com","includeActivity":true}'`,
    );
    await new Promise<void>((resolve) =>
      stop.addEventListener('abort', () => resolve(), { once: true }),
    );
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeIdleConnections();
    const grace = setTimeout(() => server.closeAllConnections(), 5_000);
    await closed;
    clearTimeout(grace);
    return 0;
  } finally {
    await store.close();
  }
}

async function main(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    options: OPTIONS,
    allowPositionals: true,
    strict: true,
  });
  if (values.help) {
    console.log(HELP);
    return 0;
  }
  if (values.version) {
    console.log(packageJson.version);
    return 0;
  }
  const [command, ...rest] = positionals;
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());
  if (command === 'serve') return serve(values, rest, stop.signal);
  if (command === 'ingest') return ingest(values, rest, stop.signal);
  throw new UsageError(
    command === undefined ? 'missing command: serve or ingest' : `unknown command "${command}"`,
  );
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  if (code === 'ENOENT' || code === 'EACCES') {
    return `cannot read ${(error as { path?: string }).path ?? 'a file'} (${code})`;
  }
  if (code === 'EADDRINUSE') return 'the port is already in use';
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const usage =
      error instanceof UsageError ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    console.error(`service-lookup: ${describe(error)}`);
    if (usage) console.error('Run "service-lookup --help" for usage.');
    process.exit(usage ? 2 : 1);
  },
);
