// The service-lookup command run from the TypeScript sources: in this process through `main`, and
// as a child process where a real one is needed (a signal, a terminal).
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { cliFromSource, PACKAGE } from './support/cli.js';
import { session } from './support/events.js';
import { serve } from './support/serve.js';

const SAMPLES = join(PACKAGE, '../../samples/events.ndjson');
const SAMPLE_KEY = 'sk_live_sample_default_000000000000000000';
const ENV_KEY = 'sk_live_from_environment_0123456789abcdef';

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the command in this process to its end, collecting what it wrote. */
async function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  let stdout = '';
  let stderr = '';
  const io = { out: (t: string) => (stdout += t), err: (t: string) => (stderr += t), tty: false };
  const code = await main(args, io, { SERVICE_SECRET_KEYS: '', DATABASE_URL: '', ...env });
  return { code, stdout, stderr };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'service-lookup-cli-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('service-lookup serve', () => {
  it('ingests, prints where it listens, answers a lookup, and exits cleanly on SIGTERM', async () => {
    const served = await serve(['--events', SAMPLES, '--key', SAMPLE_KEY], {
      SERVICE_SECRET_KEYS: `${ENV_KEY}=northwind`,
    });
    const { origin } = served;
    const stdout = served.stdout();
    expect(stdout).toMatch(/events\.ndjson: 14 ingested, 0 unchanged, 0 replaced, 0 rejected/);
    expect(stdout).toContain(
      `try: curl -s ${origin}/api/service/lookup -H "Authorization: Bearer $SERVICE_SECRET_KEY"`,
    );
    const lookup = (key: string, body: object) =>
      fetch(`${origin}/api/service/lookup`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const response = await lookup(SAMPLE_KEY, { email: 'ANN.LEE@acme.com', includeActivity: true });
    expect(response.status).toBe(200);
    const body = await response.json();
    expect(body.company).toMatchObject({
      domain: 'acme.com',
      name: 'Acme Corp',
      service_sessions: 4,
    });
    expect(body.contacts[0].site_activity).toHaveLength(2);
    expect((await lookup(ENV_KEY, { domain: 'umbrella.eu' })).status).toBe(200);
    expect((await lookup(ENV_KEY, { domain: 'globex.com' })).status).toBe(404);

    expect(await served.stop()).toBe(0);
    for (const key of [SAMPLE_KEY, ENV_KEY])
      expect(served.stdout() + served.stderr()).not.toContain(key); // never printed
  }, 60_000);

  it.each<[string, string[], RegExp]>([
    ['no keys', ['serve', '--port', '0'], /no keys: set SERVICE_SECRET_KEYS or pass --keys-file/],
    ['a malformed key', ['serve', '--key', 'sk_live_short'], /--key #1 is not a live secret key/],
    ['a bad port', ['serve', '--port', 'http', '--key', SAMPLE_KEY], /--port must be 0\.\.65535/],
    ['an unknown option', ['serve', '--prot', '1'], /Unknown option '--prot'/],
    [
      'both stores',
      ['serve', '--key', SAMPLE_KEY, '--data-dir', '/tmp/x', '--database-url', 'postgres://x'],
      /exclude each other/,
    ],
    ['no command', [], /missing command/],
    ['an unknown command', ['serv'], /unknown command "serv"/],
    ['ingest without files', ['ingest'], /at least one FILE/],
  ])('%s is a usage error: exit 2 and one clear line', async (_, args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toMatch(/^service-lookup: /);
    expect(result.stderr).toMatch(message);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack
    expect(result.stderr).not.toContain('sk_live_short');
  });
});

describe('service-lookup ingest', () => {
  it('prints the counts and rejected lines, and persists in --data-dir (a re-run changes nothing)', async () => {
    const file = join(dir, 'events.ndjson');
    const lines = [
      JSON.stringify(session('a', '2025-01-01T00:00:00Z')),
      '{"type":',
      '',
      JSON.stringify(session('b', '2025-01-02T00:00:00Z')),
    ];
    await writeFile(file, `${lines.join('\n')}\n`);
    const dataDir = join(dir, 'data');
    const first = await run(['ingest', file, '--data-dir', dataDir]);
    expect(first.code).toBe(3); // finished, with rejected lines

    expect(first.stdout).toMatch(/events\.ndjson: 2 ingested, 0 unchanged, 0 replaced, 1 rejected/);
    expect(first.stderr).toContain('line 2: malformed JSON');
    const second = await run(['ingest', file, '--data-dir', dataDir]);
    expect(second.stdout).toMatch(
      /events\.ndjson: 0 ingested, 2 unchanged, 0 replaced, 1 rejected/,
    );
  }, 60_000);

  it('on a terminal, shows a progress line that rewrites itself, then clears it for the counts', async () => {
    const file = join(dir, 'progress.ndjson');
    const lines = Array.from({ length: 52_000 }, (_, i) =>
      JSON.stringify(session(`p${i}`, '2025-01-01T00:00:00Z')),
    );
    await writeFile(file, `${lines.join('\n')}\n`);
    // `script` gives the command a real pseudo-terminal, as a person's shell would.
    const command = [process.execPath, ...cliFromSource(), 'ingest', file, '--batch-size', '25000']
      .map((part) => `'${part}'`)
      .join(' ');
    const child = spawn('script', ['-qfec', command, '/dev/null'], {
      cwd: PACKAGE,
      env: { ...process.env, SERVICE_SECRET_KEYS: '', DATABASE_URL: '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout?.on('data', (d) => (output += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    expect(code).toBe(0);
    // One rewrite per committed batch (10,000, 25,000, then the last 17,000),
    // then the line is cleared before the counts.
    const rewrites = output.match(/\r[^\r\n]*progress\.ndjson: [\d,]+ lines, [\d,]+\/s, \d+ new/g);
    expect(rewrites).toHaveLength(3);
    const clear = '\r\u001b[K';
    expect(output.slice(output.lastIndexOf(clear) + clear.length)).toMatch(
      /progress\.ndjson: 52000 ingested, 0 unchanged/,
    );
  }, 120_000);

  it.each<[string, string[], RegExp]>([
    [
      'a missing file',
      ['ingest', '/nonexistent/events.ndjson'],
      /cannot read \/nonexistent\/events\.ndjson \(ENOENT\)/,
    ],
    [
      'an unreachable database',
      ['ingest', SAMPLES, '--database-url', 'postgres://postgres@127.0.0.1:1/none'],
      /unavailable/,
    ],
  ])(
    '%s is a runtime failure: exit 1 and one clear line',
    async (_, args, message) => {
      const result = await run(args);
      expect(result.code).toBe(1);
      expect(result.stderr.trim().split('\n')).toHaveLength(1);
      expect(result.stderr).toMatch(message);
    },
    30_000,
  );
});
