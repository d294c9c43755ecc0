// `service-crm sync` writing through Bulk API 2.0 jobs, killed with SIGKILL the moment the org
// has taken a job's upload or its close: the job's records are not written yet, or are being
// written, and the command does not know. The same sync run again resumes the job from its
// journal: every Account and Contact is updated once, every Lead created once.
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Emulator } from '@service/salesforce-emulator';
import { seedOrg, sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';
import { finish, killWhenApplied, start } from './cli-process.js';
import { e2eConfig } from './e2e-config.js';
import { useEmulator } from './helpers.js';

const orgs = [useEmulator(), useEmulator(), useEmulator()] as const;
const outDir = join(packageDir, 'node_modules/.cache/service-crm-bulk-interrupted-test');
let cli = '';
const COMPANIES = 300; // 300 Account and 300 Contact updates: a job each
const NEWCOMERS = 120; // 120 Leads to create: one insert job
const config = { ...e2eConfig, autoAssign: false, bulk: { writeThreshold: 100 } };

beforeAll(async () => {
  cli = await buildCli(outDir);
}, 60_000);

/** Writes per record id (or new Lead email): composite records answered, job rows processed. */
function writes(emulator: Emulator): Map<string, number> {
  const count = new Map<string, number>();
  const add = (key: string) => count.set(key, (count.get(key) ?? 0) + 1);
  for (const r of emulator.requests)
    if (r.method === 'PATCH' && r.path.endsWith('/composite/sobjects') && r.status === 200)
      for (const record of JSON.parse(r.body).records as { id: string }[]) add(record.id);
  for (const job of emulator.bulk.jobs.values())
    for (const [i, row] of job.rows.entries())
      if (job.results[i] && !('error' in (job.results[i] ?? {}))) add(row.Id ?? `${row.Email}`);
  for (const r of emulator.requests)
    if (r.method === 'POST' && r.path.endsWith('/sobjects/Lead') && r.status === 201)
      add(JSON.parse(r.body).Email);
  return count;
}

describe('service-crm sync with Bulk API 2.0 killed mid-job and run again', () => {
  it.each([
    ['took the upload of the first job', 'PUT', /\/jobs\/ingest\/\w+\/batches$/, 1, 0],
    ['closed the first job', 'PATCH', /\/jobs\/ingest\/\w+$/, 1, 1],
    ['closed the Lead insert job', 'PATCH', /\/jobs\/ingest\/\w+$/, 3, 2],
  ] as const)(
    'killed when the org %s: the re-run resumes it, every record written once',
    async (_moment, method, path, nth, org) => {
      const { emulator } = orgs[org];
      const home = await mkdtemp(join(tmpdir(), 'service-crm-bulk-killed-'));
      const { accounts, contacts } = seedOrg(emulator.org, { companies: COMPANIES });
      const events = join(home, 'events.ndjson');
      await writeFile(
        events,
        toNdjson(sessionEvents({ companies: COMPANIES, newcomers: NEWCOMERS })),
      );
      const file = join(home, 'config.json');
      await writeFile(file, JSON.stringify(config));
      expect((await finish(start(cli, home, emulator, ['fields', 'apply']))).code).toBe(0);

      const args = ['sync', '--events', events, '--config', file, '--json'];
      const child = start(cli, home, emulator, args);
      const restore = killWhenApplied(emulator, child, method, path, nth);
      const killed = await finish(child);
      restore();
      expect(killed.signal).toBe('SIGKILL');

      const rerun = await finish(start(cli, home, emulator, args));
      expect(rerun.stderr).toBe('');
      expect(rerun.code).toBe(0);
      const report = JSON.parse(rerun.stdout);
      expect(report.counts).toMatchObject({ failed: 0, pending: 0 });
      expect(emulator.bulk.operations()).toEqual(
        expect.arrayContaining(['update', 'update', 'insert']),
      );
      const count = writes(emulator);
      for (const id of [...accounts, ...contacts]) expect(count.get(id), id).toBe(1);
      const leads = [...emulator.org.table('Lead').values()]
        .map((l) => String(l.Email))
        .filter((email) => email.endsWith('@newco.io'));
      expect(leads.sort()).toEqual(
        Array.from({ length: NEWCOMERS }, (_, i) => `newcomer${i}@newco.io`).sort(),
      );
      for (const email of leads) expect(count.get(email), email).toBe(1);
    },
    120_000,
  );
});
