/**
 * PostgreSQL clusters of a test's own: a primary (initdb), streaming standbys (pg_basebackup -R),
 * promotion, and PgBouncer in front, each on a free port in a temporary directory removed at the
 * end. The server binaries refuse to run as root, so they run as `postgres` (runuser) when the
 * test runs as root. `clusterMissing` says what is absent, for `requires()`. Its own entry
 * (`@service/test-support/cluster`): importing it looks for the binaries.
 */
import { execFile, spawn } from 'node:child_process';
import { chown, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const asRoot = process.getuid?.() === 0;

/** A command as the `postgres` user when this process is root. */
const asPostgres = (command: string, args: string[]): [string, string[]] =>
  asRoot ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];

async function exec(command: string, args: string[]): Promise<string> {
  const [file, argv] = asPostgres(command, args);
  return (await run(file, argv, { maxBuffer: 16 * 1024 * 1024 })).stdout;
}

async function which(command: string): Promise<string | undefined> {
  return run('sh', ['-c', `command -v ${command}`]).then(
    ({ stdout }) => stdout.trim() || undefined,
    () => undefined,
  );
}

const bindir = await run('pg_config', ['--bindir']).then(
  ({ stdout }) => stdout.trim(),
  () => undefined,
);
const pgbouncerBin = await which('pgbouncer');

/** Why clusters cannot be built here, or undefined when they can. Under CI=true nothing may be missing. */
export const clusterMissing: string | undefined =
  bindir === undefined
    ? 'pg_config not found: PostgreSQL server binaries (initdb, pg_ctl, pg_basebackup) are needed'
    : pgbouncerBin === undefined
      ? 'pgbouncer not found (apt-get install -y pgbouncer)'
      : undefined;

/** A free TCP port on loopback, as the kernel hands one out. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A directory the `postgres` user owns. */
async function ownedDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const uid = Number(stdout.trim());
    await chown(dir, uid, uid);
  }
  return dir;
}

/** One running PostgreSQL server of a test. */
export class Cluster {
  readonly dir: string;
  readonly port: number;
  constructor(dir: string, port: number) {
    this.dir = dir;
    this.port = port;
  }

  /** `postgres://postgres@127.0.0.1:PORT/postgres`, with `query` (`?...`) appended. */
  url(query = ''): string {
    return `postgres://postgres@127.0.0.1:${this.port}/postgres${query}`;
  }

  /** `127.0.0.1:PORT`, for multi-host URLs. */
  get host(): string {
    return `127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const options = [
      `-p ${this.port}`,
      `-k ${this.dir}`,
      '-c listen_addresses=127.0.0.1',
      '-c wal_level=replica',
      '-c fsync=off',
      '-c full_page_writes=off',
      '-c shared_buffers=16MB',
      '-c max_connections=60',
      '-c wal_keep_size=128MB',
    ].join(' ');
    await exec(join(bindir ?? '', 'pg_ctl'), [
      '-D',
      join(this.dir, 'data'),
      '-o',
      options,
      '-l',
      join(this.dir, 'log'),
      '-w',
      'start',
    ]);
  }

  /** `pg_ctl stop -m MODE` (`immediate`: a crash, as when the machine dies). */
  async stop(mode: 'fast' | 'immediate' = 'fast'): Promise<void> {
    await exec(join(bindir ?? '', 'pg_ctl'), ['-D', join(this.dir, 'data'), '-m', mode, 'stop']);
  }

  /** `pg_ctl promote`: the standby becomes a primary, and waits until it is one. */
  async promote(): Promise<void> {
    await exec(join(bindir ?? '', 'pg_ctl'), ['-D', join(this.dir, 'data'), '-w', 'promote']);
  }

  /** One query on a connection of its own. */
  async query<Row extends pg.QueryResultRow>(sql: string, params: unknown[] = []): Promise<Row[]> {
    const client = new pg.Client({ connectionString: this.url() });
    await client.connect();
    try {
      return (await client.query<Row>(sql, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** Stops the server (if it runs) and removes its directory. */
  async remove(): Promise<void> {
    await this.stop('immediate').catch(() => {});
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** A new primary that takes replication connections from loopback. */
export async function startPrimary(): Promise<Cluster> {
  const dir = await ownedDir('service-lookup-primary-');
  const cluster = new Cluster(dir, await freePort());
  await exec(join(bindir ?? '', 'initdb'), [
    '-D',
    join(dir, 'data'),
    '-A',
    'trust',
    '-U',
    'postgres',
    '--no-sync',
  ]);
  await exec('sh', [
    '-c',
    `echo 'host replication all 127.0.0.1/32 trust' >> '${join(dir, 'data', 'pg_hba.conf')}'`,
  ]);
  await cluster.start();
  return cluster;
}

/** A hot standby of `primary`, streaming from it (`pg_basebackup -R -X stream`). */
export async function startStandby(primary: Cluster): Promise<Cluster> {
  const dir = await ownedDir('service-lookup-standby-');
  const cluster = new Cluster(dir, await freePort());
  await exec(join(bindir ?? '', 'pg_basebackup'), [
    '-h',
    '127.0.0.1',
    '-p',
    String(primary.port),
    '-U',
    'postgres',
    '-D',
    join(dir, 'data'),
    '-R',
    '-X',
    'stream',
    '--no-sync',
  ]);
  await cluster.start();
  return cluster;
}

/** Waits until `standby` has replayed everything `primary` has written so far. */
export async function caughtUp(primary: Cluster, standby: Cluster): Promise<void> {
  const [written] = await primary.query<{ lsn: string }>(
    'SELECT pg_current_wal_lsn()::text AS lsn',
  );
  for (;;) {
    const [row] = await standby.query<{ done: boolean }>(
      'SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn AS done',
      [written?.lsn],
    );
    if (row?.done) return;
    await sleep(20);
  }
}

/** A running PgBouncer in transaction pooling mode. */
export interface Bouncer {
  port: number;
  /** A URL through the pooler to `postgres` (with `pgbouncer=true` unless `plain`). */
  url(plain?: boolean): string;
  stop(): Promise<void>;
}

/** PgBouncer (`pool_mode = transaction`) in front of `cluster`. */
export async function startBouncer(cluster: Cluster): Promise<Bouncer> {
  const dir = await ownedDir('service-lookup-pgbouncer-');
  const port = await freePort();
  const ini = join(dir, 'pgbouncer.ini');
  await writeFile(join(dir, 'users.txt'), '"postgres" ""\n');
  await writeFile(
    ini,
    `[databases]
* = host=127.0.0.1 port=${cluster.port}
[pgbouncer]
listen_addr = 127.0.0.1
listen_port = ${port}
unix_socket_dir =
auth_type = trust
auth_file = ${join(dir, 'users.txt')}
pool_mode = transaction
max_client_conn = 200
default_pool_size = 10
logfile = ${join(dir, 'log')}
pidfile = ${join(dir, 'pid')}
ignore_startup_parameters = extra_float_digits,options
`,
  );
  const [file, argv] = asPostgres(pgbouncerBin ?? 'pgbouncer', [ini]);
  if (asRoot) await run('chown', ['-R', 'postgres', dir]);
  const child = spawn(file, argv, { stdio: 'ignore' });
  const url = (plain = false) =>
    `postgres://postgres@127.0.0.1:${port}/postgres${plain ? '' : '?pgbouncer=true'}`;
  // Ready once a query goes through.
  for (let tries = 0; ; tries++) {
    const client = new pg.Client({ connectionString: url(true) });
    client.on('error', () => {});
    try {
      await client.connect();
      await client.query('SELECT 1');
      await client.end();
      break;
    } catch (error) {
      await client.end().catch(() => {});
      if (tries > 200) throw error;
      await sleep(25);
    }
  }
  return {
    port,
    url,
    async stop() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      // runuser passes SIGTERM on to pgbouncer.
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
      await rm(dir, { recursive: true, force: true });
    },
  };
}
