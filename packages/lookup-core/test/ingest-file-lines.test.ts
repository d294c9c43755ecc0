/**
 * NDJSON files with bad lines, through `service-lookup ingest` and `serve --events`,
 * on the embedded store (--data-dir) and on PostgreSQL (--database-url). Every line ends stored,
 * unchanged, replaced or rejected with its number and reason; a rejected line costs no other line;
 * `--rejects FILE` holds each rejected line as it was read; exit status 3 says lines were rejected.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { createTestDatabase, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type LookupStore,
  type ObservedCompany,
  openEmbeddedStore,
  openPostgresStore,
} from '../src/index.js';
import { runCli } from './support/cli.js';
import { linkedin, session } from './support/events.js';
import { lookup, serve } from './support/serve.js';

const database = await createTestDatabase();
let dir: string;
let files = 0;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'ingest-file-lines-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
  await database.drop();
});

/** Writes lines (text or raw bytes) as an NDJSON file, each ended by `\n`. */
async function eventsFile(lines: Array<string | Uint8Array>): Promise<string> {
  const file = join(dir, `events-${++files}.ndjson`);
  const parts = lines.flatMap((l) => [
    typeof l === 'string' ? Buffer.from(l) : l,
    Buffer.from('\n'),
  ]);
  await writeFile(file, Buffer.concat(parts));
  return file;
}

interface Rejected {
  file: string;
  line: number;
  reason: string;
  raw?: string;
  raw_base64?: string;
}
const readRejects = async (file: string): Promise<Rejected[]> =>
  (await readFile(file, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

interface Backend {
  name: string;
  missing?: string | undefined;
  /** Store flags for the command; `fresh` starts an empty store for the embedded one. */
  flags(): string[];
  open(): Promise<LookupStore>;
  /** Runs one SQL statement on the store's database while no command uses it. */
  sql(statement: string): Promise<void>;
}

let dataDir = '';
const backends: Backend[] = [
  {
    name: 'embedded store (--data-dir)',
    flags: () => ['--data-dir', dataDir],
    open: () => openEmbeddedStore({ dataDir }),
    async sql(statement) {
      const db = new PGlite(dataDir);
      await db.exec(statement);
      await db.close();
    },
  },
  {
    name: 'PostgreSQL (--database-url)',
    missing: database.missing,
    flags: () => ['--database-url', database.url],
    open: () => openPostgresStore({ connectionString: database.url }),
    async sql(statement) {
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      await client.query(statement);
      await client.end();
    },
  },
];

let workspaces = 0;
const line = (event: Record<string, unknown>, workspace: string) =>
  JSON.stringify({ ...event, workspace });

async function companies(backend: Backend, workspace: string): Promise<ObservedCompany[]> {
  const store = await backend.open();
  try {
    const all: ObservedCompany[] = [];
    for await (const o of store.readAggregates({ workspace })) all.push(o);
    return all;
  } finally {
    await store.close();
  }
}

for (const backend of backends) {
  describe(backend.name, requires(backend.missing), () => {
    beforeAll(async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'ingest-file-lines-data-'));
    });
    afterAll(() => rm(dataDir, { recursive: true, force: true }));

    it('rejects impossible and out-of-range timestamps by line, and stores the rest of the batch', async () => {
      const ws = `ts-${++workspaces}`;
      const at = (start_time: string, end_time = start_time) =>
        line(session(`t-${start_time}`, '2025-01-01T00:00:00Z', { start_time, end_time }), ws);
      const lines = [
        line(session('ok-1', '2025-03-01T10:00:00Z'), ws),
        at('9999-12-31T23:59:59-01:00'), // year 10000 once in UTC
        at('0000-01-01T00:00:00Z'),
        at('9999-12-31T00:00:00Z'),
        at('0001-01-01T00:00:00Z'),
        at('2025-02-31T10:00:00Z'), // no such day
        at('1969-12-31T23:59:59Z'),
        at('2025-01-01T24:00:00Z'),
        at('2025-03-01T10:00:00Z', '2025-03-01T09:59:59Z'), // ends before it starts
        line(session('ok-2', '2025-03-02T10:00:00Z'), ws),
      ];
      const file = await eventsFile(lines);
      const rejects = join(dir, `rejects-${files}.ndjson`);
      const run = await runCli(['ingest', file, '--rejects', rejects, ...backend.flags()]);
      expect(run.code).toBe(3);
      expect(run.stdout).toMatch(/: 2 ingested, 0 unchanged, 0 replaced, 8 rejected/);
      expect(run.stderr).toContain('line 2: start_time: too far in the future');
      expect(run.stderr).toContain('line 3: start_time: before 1970-01-01T00:00:00Z');
      expect(run.stderr).toContain('line 4: start_time: too far in the future');
      expect(run.stderr).toContain('line 5: start_time: before 1970-01-01T00:00:00Z');
      expect(run.stderr).toContain('line 6: start_time: not a calendar date');
      expect(run.stderr).toContain('line 7: start_time: before 1970-01-01T00:00:00Z');
      expect(run.stderr).toContain('line 8: start_time: not a valid time of day or offset');
      expect(run.stderr).toContain('line 9: end_time: end_time is before start_time');
      const written = await readRejects(rejects);
      expect(written.map((r) => [r.line, r.raw])).toEqual(
        [2, 3, 4, 5, 6, 7, 8, 9].map((n) => [n, lines[n - 1]]),
      );
      expect(written.every((r) => r.file === file)).toBe(true);
      const [acme] = await companies(backend, ws);
      expect(acme?.company).toMatchObject({
        sessions: 2,
        firstSeen: '2025-03-01T10:00:00.000Z',
        lastSeen: '2025-03-02T10:05:00.000Z',
      });
    }, 60_000);

    it('lines validated off the main thread keep their numbers across chunks, and unreadable ones are kept whole', async () => {
      // The command validates lines on a worker thread, 2,000 at a time: rejections on both sides
      // of a chunk boundary, an oversized line and one that is not UTF-8 must still be numbered
      // as read and written to the rejects file as read.
      const ws = `chunks-${++workspaces}`;
      const malformed = new Set([1, 1999, 2000, 2001, 4000]);
      const oversized = 2500;
      const notUtf8 = 3000;
      const blank = 4499;
      const lines: Array<string | Uint8Array> = [];
      for (let n = 1; n <= 4500; n++) {
        if (malformed.has(n)) lines.push(`{"id": "broken-${n}"`);
        else if (n === oversized) lines.push(`{"pad":"${'x'.repeat(3000)}"}`);
        else if (n === notUtf8) lines.push(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]));
        else if (n === blank) lines.push('');
        else lines.push(line(session(`c${n}`, '2025-03-01T10:00:00Z'), ws));
      }
      const file = await eventsFile(lines);
      const rejects = join(dir, `rejects-${files}.ndjson`);
      const args = ['ingest', file, '--rejects', rejects, '--max-line-bytes', '2000'];
      const run = await runCli([...args, ...backend.flags()]);
      expect(run.code).toBe(3);
      expect(run.stdout).toMatch(/: 4492 ingested, 0 unchanged, 0 replaced, 7 rejected/);
      const written = await readRejects(rejects);
      expect(written.map((r) => r.line)).toEqual([1, 1999, 2000, 2001, oversized, notUtf8, 4000]);
      for (const r of written) {
        const read = lines[r.line - 1] ?? '';
        if (typeof read === 'string' && r.line !== oversized) expect(r.raw).toBe(read);
        else expect(Buffer.from(r.raw_base64 ?? '', 'base64')).toEqual(Buffer.from(read));
      }
      const [acme] = await companies(backend, ws);
      expect(acme?.company.sessions).toBe(4492);
    }, 120_000);

    it('serve --events starts with such a file and serves the valid lines', async () => {
      const ws = 'default';
      const file = await eventsFile([
        line(
          session('far', '2025-01-01T00:00:00Z', { start_time: '9999-12-31T23:59:59-01:00' }),
          ws,
        ),
        line(session('served', '2025-03-01T10:00:00Z', { company: { domain: 'served.io' } }), ws),
      ]);
      const key = 'sk_live_findings_0123456789abcdefghij';
      const rejects = join(dir, `rejects-serve-${files}.ndjson`);
      const served = await serve([
        '--events',
        file,
        '--rejects',
        rejects,
        '--key',
        key,
        ...backend.flags(),
      ]);
      try {
        expect(served.stdout()).toMatch(/: 1 ingested, 0 unchanged, 0 replaced, 1 rejected/);
        expect(served.stderr()).toContain('line 1: start_time: too far in the future');
        expect((await readRejects(rejects)).map((r) => r.line)).toEqual([1]);
        expect((await lookup(served.origin, key, { domain: 'served.io' })).status).toBe(200);
      } finally {
        await served.stop();
      }
    }, 60_000);

    it('splits lines at \\n only, refuses invalid UTF-8 and over-long lines, keeps every valid line', async () => {
      const ws = `lines-${++workspaces}`;
      const valid = (id: string, fields = {}) =>
        line(
          session(id, '2025-03-01T10:00:00Z', { company: { domain: `${id}.io` }, ...fields }),
          ws,
        );
      const invalidUtf8 = Buffer.concat([
        Buffer.from(valid('bad', { company: { domain: 'bad.io', name: 'Bad ' } }).slice(0, -60)),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(valid('bad', { company: { domain: 'bad.io', name: 'Bad ' } }).slice(-60)),
      ]);
      const long = valid('long', { referrer: 'x'.repeat(1024 * 1024) });
      const lines = [
        valid('one', { referrer: 'https://a.example/\u2028x' }),
        valid('two', { company: { domain: 'two.io', name: 'Line\u2029Sep' } }),
        `${valid('three')}\r`,
        valid('four', { city: 'CR\rinside' }).replace('CR\\rinside', 'CR\\rinside'),
        invalidUtf8,
        long,
      ];
      const file = await eventsFile(lines);
      const rejects = join(dir, `rejects-${files}.ndjson`);
      const run = await runCli(['ingest', file, '--rejects', rejects, ...backend.flags()]);
      expect(run.code).toBe(3);
      expect(run.stdout).toMatch(/: 4 ingested, 0 unchanged, 0 replaced, 2 rejected/);
      expect(run.stderr).toContain('line 5: not valid UTF-8');
      expect(run.stderr).toContain('line 6: line longer than 1048576 bytes');
      const written = await readRejects(rejects);
      expect(written.map((r) => r.line)).toEqual([5, 6]);
      expect(Buffer.from(written[0]?.raw_base64 ?? '', 'base64')).toEqual(invalidUtf8);
      expect(Buffer.from(written[1]?.raw_base64 ?? '', 'base64').toString()).toBe(long);
      const stored = await companies(backend, ws);
      expect(stored.map((o) => o.company.domain)).toEqual([
        'four.io',
        'one.io',
        'three.io',
        'two.io',
      ]);
      expect(stored.find((o) => o.company.domain === 'two.io')?.company.name).toBe('Line\u2029Sep');
    }, 60_000);

    it('rejects a 128 MB line while its heap holds 64 MB, and stores the lines around it', async () => {
      const ws = `huge-${++workspaces}`;
      const file = join(dir, `huge-${++files}.ndjson`);
      const huge = Buffer.alloc(128 * 1024 * 1024, 0x78);
      await writeFile(
        file,
        Buffer.concat([
          Buffer.from(`${line(session('before', '2025-03-01T10:00:00Z'), ws)}\n{"referrer":"`),
          huge,
          Buffer.from(`"}\n${line(session('after', '2025-03-02T10:00:00Z'), ws)}\n`),
        ]),
      );
      // Held whole, the line alone would not fit in the heap.
      const run = await runCli(['ingest', file, ...backend.flags()], ['--max-old-space-size=64']);
      await rm(file);
      expect(run.stderr).toContain('line 2: line longer than 1048576 bytes');
      expect(run.code).toBe(3);
      expect(run.stdout).toMatch(/: 2 ingested, 0 unchanged, 0 replaced, 1 rejected/);
    }, 120_000);

    it('refuses counters above 2^31-1, and the one line whose sum would pass 2^53-1', async () => {
      const ws = `sums-${++workspaces}`;
      const engagement = (id: string, impressions: number) =>
        line(
          linkedin(id, '2025-03-01T10:00:00Z', { impressions, clicks: 0, likes: 0, comments: 0 }),
          ws,
        );
      const huge = Array.from({ length: 1100 }, (_, i) => engagement(`max-${i}`, 2 ** 53 - 1));
      const overflow = await runCli(['ingest', await eventsFile(huge), ...backend.flags()]);
      expect(overflow.code).toBe(3);
      expect(overflow.stdout).toMatch(/: 0 ingested, 0 unchanged, 0 replaced, 1100 rejected/);
      expect(overflow.stderr).toContain(
        'line 1: impressions: Too big: expected number to be <=2147483647',
      );

      expect(
        (await runCli(['ingest', await eventsFile([engagement('seed', 1)]), ...backend.flags()]))
          .code,
      ).toBe(0);
      // Reaching 2^53 takes 4 million maximal events; the test starts next to it instead.
      await backend.sql(
        `UPDATE companies SET impressions = 9007199254740991 - 100 WHERE workspace = '${ws}'`,
      );
      const edge = await runCli([
        'ingest',
        // Line 3 repeats line 2 exactly: refused with it, for the same reason.
        await eventsFile([
          engagement('a', 60),
          engagement('b', 60),
          engagement('b', 60),
          engagement('c', 40),
        ]),
        ...backend.flags(),
      ]);
      expect(edge.code).toBe(3);
      expect(edge.stdout).toMatch(/: 2 ingested, 0 unchanged, 0 replaced, 2 rejected/);
      for (const line of [2, 3])
        expect(edge.stderr).toContain(
          `line ${line}: adding it would take a company's sums past 2^53-1 (9007199254740991)`,
        );
      const [acme] = await companies(backend, ws);
      expect(acme?.company.linkedin.impressions).toBe(9007199254740991);
    }, 120_000);
  });
}

describe('ingest flags', () => {
  it('--max-future-skew reaches validation: two hours ahead is rejected at 3600 s, kept by default', async () => {
    const ahead = new Date(Date.now() + 2 * 3_600_000).toISOString();
    const file = await eventsFile([
      JSON.stringify(
        session('skew-1', ahead, { workspace: 'skew', start_time: ahead, end_time: ahead }),
      ),
    ]);
    // A store of its own: under CI, DATABASE_URL would keep the event between runs, and a later
    // run's timestamp would then replace it rather than ingest it.
    const store = ['--data-dir', join(dir, 'skew-data')];
    const strict = await runCli(['ingest', file, '--max-future-skew', '3600', ...store]);
    expect(strict.code).toBe(3);
    expect(strict.stderr).toContain('line 1: start_time: too far in the future');
    const lenient = await runCli(['ingest', file, ...store]);
    expect(lenient.code).toBe(0);
    expect(lenient.stdout).toMatch(/: 1 ingested, 0 unchanged, 0 replaced, 0 rejected/);
  }, 60_000);

  it('a value that is not a whole number is a usage error: exit 2 and one clear line', async () => {
    const file = await eventsFile([]);
    for (const [flag, value] of [
      ['--max-line-bytes', '0'],
      ['--max-line-bytes', '1e6'],
      ['--max-future-skew', '-1'],
      ['--batch-size', '0'],
      ['--batch-size', '100k'],
    ] as const) {
      const run = await runCli(['ingest', file, `${flag}=${value}`]);
      expect(run.code).toBe(2);
      expect(run.stderr).toContain(`${flag} must be a whole number`);
      expect(run.stderr).not.toMatch(/\n\s+at /);
    }
  }, 60_000);
});
