/**
 * Process tests on clusters of their own: a primary and a streaming hot standby, a failover
 * (primary killed, standby promoted), and PgBouncer in transaction mode. `service-lookup serve`
 * and `ingest` run as processes, from the sources, with the URLs an operator would give them.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { requires } from '@service/test-support';
import {
  type Bouncer,
  type Cluster,
  caughtUp,
  clusterMissing,
  startBouncer,
  startPrimary,
  startStandby,
} from '@service/test-support/cluster';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openPostgresStore, SchemaVersionError } from '../src/index.js';
import { cliFromSource, PACKAGE } from './support/cli.js';
import { KEY, session } from './support/events.js';
import { lookup, type Served, serve } from './support/serve.js';

/** How soon a commit on the primary must show on a standby-backed server (its cache included). */
const PROMISED_MS = 2_000;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'service-lookup-cluster-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

let files = 0;
/** `events` as an NDJSON file of the test's directory. */
async function eventsFile(events: object[]): Promise<string> {
  const file = join(dir, `events-${++files}.ndjson`);
  await writeFile(file, `${events.map((e) => JSON.stringify(e)).join('\n')}\n`);
  return file;
}

/** `service-lookup ingest` of `events` through `url`, as a process of its own. */
async function ingest(
  url: string,
  events: object[],
): Promise<{ code: number | null; output: string }> {
  const file = await eventsFile(events);
  const child = spawn(
    process.execPath,
    [...cliFromSource(), 'ingest', file, '--database-url', url],
    {
      cwd: PACKAGE,
      env: { ...process.env, DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (d) => (output += d));
  child.stderr?.on('data', (d) => (output += d));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, output };
}

async function ingested(url: string, events: object[]): Promise<void> {
  const { code, output } = await ingest(url, events);
  expect(code, output).toBe(0);
}

/** The company's session count as `origin` answers it, `null` for a 404. */
async function sessionsAt(origin: string, domain: string): Promise<number | null> {
  const response = await lookup(origin, KEY, { domain });
  if (response.status === 404) return null;
  expect(response.status).toBe(200);
  return (await response.json()).company.service_sessions;
}

/** Polls `origin` until it answers `want` for `domain`, for at most `withinMs`. */
async function answers(origin: string, domain: string, want: number, withinMs: number) {
  const deadline = performance.now() + withinMs;
  let seen = await sessionsAt(origin, domain);
  while (seen !== want && performance.now() < deadline) {
    await sleep(20);
    seen = await sessionsAt(origin, domain);
  }
  expect(seen).toBe(want);
}

const visit = (id: string, domain: string, at = '2025-05-01T10:00:00Z') =>
  session(id, at, { company: { domain } });

describe('a primary and a hot standby', requires(clusterMissing), () => {
  let primary: Cluster;
  let standby: Cluster;
  let bouncer: Bouncer | undefined;
  const servers: Served[] = [];
  beforeAll(async () => {
    primary = await startPrimary();
    standby = await startStandby(primary);
  }, 120_000);
  afterAll(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    await bouncer?.stop();
    await standby?.remove();
    await primary?.remove();
  });

  it('a standby of a primary never migrated is refused with the reason, and nothing is created', async () => {
    await expect(openPostgresStore({ connectionString: standby.url() })).rejects.toThrow(
      new SchemaVersionError(
        'the server is read-only and its primary was never migrated: open the store on the primary once (service-lookup ingest or serve there), then here',
      ),
    );
  }, 60_000);

  it('serve on the standby answers what was ingested on the primary; ingest there is refused with the reason', async () => {
    await ingested(primary.url(), [visit('s-1', 'standby.io')]);
    await caughtUp(primary, standby);
    const served = await serve(['--database-url', standby.url(), '--key', KEY, '--metrics']);
    servers.push(served);
    expect(await sessionsAt(served.origin, 'standby.io')).toBe(1);

    const refused = await ingest(standby.url(), [visit('s-2', 'standby.io')]);
    expect(refused.code).not.toBe(0);
    expect(refused.output).toContain(
      'cannot ingest: the server is a hot standby (in recovery); ingest on the primary',
    );
    expect(refused.output).not.toMatch(/\n\s+at /);
  }, 60_000);

  it('a change ingested on the primary shows on a standby-backed server, its kept answer included, within 2 s', async () => {
    const [served] = servers;
    if (served === undefined) throw new Error('the server of the test before is needed');
    // Kept: asked twice, the second answer comes from the cache.
    expect(await sessionsAt(served.origin, 'standby.io')).toBe(1);
    expect(await sessionsAt(served.origin, 'standby.io')).toBe(1);
    expect(await sessionsAt(served.origin, 'later.io')).toBeNull();
    await ingested(primary.url(), [visit('s-3', 'standby.io', '2025-05-02T10:00:00Z')]);
    await ingested(primary.url(), [visit('l-1', 'later.io')]);
    await answers(served.origin, 'standby.io', 2, PROMISED_MS);
    await answers(served.origin, 'later.io', 1, PROMISED_MS);

    const readyz = await (await fetch(`${served.origin}/readyz`)).json();
    expect(readyz).toMatchObject({
      status: 'ready',
      checks: { store: 'ok', migrations: 'current', changeFeed: 'polling' },
    });
    expect(readyz.checks.replayLagSeconds).toBeGreaterThanOrEqual(0);
    const metrics = await (await fetch(`${served.origin}/metrics`)).text();
    expect(metrics).toMatch(/service_lookup_replay_lag_seconds \d/);
    expect(metrics).toMatch(/service_lookup_change_log_position [1-9]/);
  }, 60_000);

  it('/readyz turns 503 while the standby replays behind --max-replay-lag (0 here), and 200 once it caught up', async () => {
    const served = await serve([
      ...['--database-url', standby.url(), '--key', KEY],
      '--max-replay-lag',
      '0',
    ]);
    servers.push(served);
    const readyz = async () => {
      const response = await fetch(`${served.origin}/readyz`);
      return { status: response.status, body: await response.json() };
    };
    /** Polls /readyz until it answers `status` (at most 20 s). */
    const until = async (status: number) => {
      for (let waited = 0; ; waited += 50) {
        const answer = await readyz();
        if (answer.status === status) return answer.body;
        if (waited > 20_000) throw new Error(`/readyz still ${JSON.stringify(answer)}`);
        await sleep(50);
      }
    };
    expect((await until(200)).checks.replayLagSeconds).toBe(0);
    await standby.query('SELECT pg_wal_replay_pause()');
    try {
      // Received, not replayed: any lag is past a bound of 0.
      await ingested(primary.url(), [visit('lag-1', 'lag.io')]);
      const behind = await until(503);
      expect(behind).toMatchObject({ status: 'not ready', checks: { store: 'ok' } });
      expect(behind.checks.replayLagSeconds).toBeGreaterThan(0);
    } finally {
      await standby.query('SELECT pg_wal_replay_resume()');
    }
    expect((await until(200)).checks.replayLagSeconds).toBe(0);
    expect(await sessionsAt(served.origin, 'lag.io')).toBe(1);
  }, 60_000);

  it('ingest through host1,host2 with target_session_attrs=read-write finds the primary whichever comes first', async () => {
    for (const hosts of [
      [standby.host, primary.host],
      [primary.host, standby.host],
    ]) {
      const url = `postgres://postgres@${hosts.join(',')}/postgres?target_session_attrs=read-write`;
      await ingested(url, [visit(`rw-${hosts[0]}`, 'multi.io')]);
    }
    const [row] = await primary.query<{ n: string }>(
      "SELECT count(*)::text AS n FROM events WHERE domain = 'multi.io'",
    );
    expect(row?.n).toBe('2');
    // Only standbys listed: no server matches, and the message says why of each.
    const none = await ingest(
      `postgres://postgres@${standby.host}/postgres?target_session_attrs=primary`,
      [visit('none', 'multi.io')],
    );
    expect(none.code).not.toBe(0);
    expect(none.output).toContain(
      `no server matches target_session_attrs=primary: ${standby.host} is a standby (in recovery)`,
    );
  }, 60_000);

  it('serve and ingest through PgBouncer in transaction mode stay fresh', async () => {
    bouncer = await startBouncer(primary);
    const served = await serve(['--database-url', bouncer.url(), '--key', KEY]);
    expect(await sessionsAt(served.origin, 'bounced.io')).toBeNull();
    expect(await sessionsAt(served.origin, 'bounced.io')).toBeNull();
    await ingested(bouncer.url(), [visit('b-1', 'bounced.io')]);
    await answers(served.origin, 'bounced.io', 1, PROMISED_MS);
    await ingested(bouncer.url(), [visit('b-2', 'bounced.io', '2025-05-02T10:00:00Z')]);
    await answers(served.origin, 'bounced.io', 2, PROMISED_MS);
    const readyz = await (await fetch(`${served.origin}/readyz`)).json();
    expect(readyz.checks.changeFeed).toBe('polling');
    // Gone before the next test stops the primary: PgBouncer holds queries for a missing server.
    expect(await served.stop()).toBe(0);
    await bouncer.stop();
    bouncer = undefined;
  }, 60_000);

  it('a server that ingests writes on the primary, reads lookups from --read-replicas, and answers with the primary down', async () => {
    const events = await eventsFile([visit('r-1', 'replica.io')]);
    const served = await serve([
      ...['--database-url', primary.url(), '--read-replicas', standby.url()],
      ...['--events', events, '--key', KEY],
    ]);
    servers.push(served);
    // Its own ingest went to the primary, and shows once the replica replayed it.
    await answers(served.origin, 'replica.io', 1, PROMISED_MS);
    await ingested(primary.url(), [visit('r-2', 'replica.io', '2025-05-02T10:00:00Z')]);
    await answers(served.origin, 'replica.io', 2, PROMISED_MS);

    await primary.stop('fast');
    // Never asked of this server, so not cached: read from the replica.
    expect(await sessionsAt(served.origin, 'standby.io')).toBe(2);
    expect(await sessionsAt(served.origin, 'multi.io')).toBe(2);
  }, 60_000);
});

describe('a failover: the primary killed, the standby promoted', requires(clusterMissing), () => {
  let primary: Cluster;
  let standby: Cluster;
  let served: Served | undefined;
  beforeAll(async () => {
    primary = await startPrimary();
    standby = await startStandby(primary);
  }, 120_000);
  afterAll(async () => {
    await served?.stop();
    await standby?.remove();
    await primary?.remove();
  });

  it('ingest through the same URL succeeds, and the server shows the new data without a restart', async () => {
    const url = `postgres://postgres@${primary.host},${standby.host}/postgres?target_session_attrs=read-write`;
    await ingested(url, [visit('f-1', 'failover.io')]);
    served = await serve(['--database-url', url, '--key', KEY]);
    expect(await sessionsAt(served.origin, 'failover.io')).toBe(1);
    await caughtUp(primary, standby);

    await primary.stop('immediate');
    await standby.promote();
    await ingested(url, [visit('f-2', 'failover.io', '2025-05-02T10:00:00Z')]);
    // The server lost its primary; it finds the promoted standby through the same list.
    const deadline = performance.now() + 30_000;
    let seen: number | null | undefined;
    while (seen !== 2 && performance.now() < deadline) {
      const response = await lookup(served.origin, KEY, { domain: 'failover.io' });
      seen = response.status === 200 ? (await response.json()).company.service_sessions : undefined;
      if (seen !== 2) await sleep(50);
    }
    expect(seen).toBe(2);
  }, 120_000);
});
