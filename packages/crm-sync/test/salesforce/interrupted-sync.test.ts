// `service-crm sync` killed with SIGKILL mid-plan, at the worst moment: the org has applied a
// write (a composite update batch, or a Lead create) and the command has not yet heard back, so
// its journal does not know. The same sync run again finishes the plan and writes every record
// once: no Account updated twice, no Lead created twice.
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

// One org per case, so each starts from the same seeded state.
const orgs = [useEmulator({ pageSize: 300 }), useEmulator({ pageSize: 300 })] as const;
const outDir = join(packageDir, 'node_modules/.cache/service-crm-interrupted-test');
let cli = '';
const COMPANIES = 700; // 4 composite update batches of at most 200
const NEWCOMERS = 12; // 12 Leads to create

beforeAll(async () => {
  cli = await buildCli(outDir);
}, 60_000);

/** Every Account id in a successful composite update, and every Lead at newco.io in the org. */
function writesOf(emulator: Emulator) {
  const updated = emulator.requests
    .filter((r) => r.method === 'PATCH' && r.path.endsWith('/composite/sobjects'))
    .filter((r) => r.status === 200)
    .flatMap((r) => (JSON.parse(r.body).records as Array<{ id: string }>).map((x) => x.id));
  const leads = [...emulator.org.table('Lead').values()]
    .map((l) => String(l.Email))
    .filter((email) => email.endsWith('@newco.io'));
  return { updated, leads };
}

describe('service-crm sync killed mid-plan and run again', () => {
  it.each([
    ['the org applied the 2nd composite update batch', 'PATCH', /\/composite\/sobjects$/, 2, 0],
    ['the org created the 5th Lead', 'POST', /\/sobjects\/Lead$/, 5, 1],
  ] as const)(
    'killed when %s: the re-run finishes the plan, every record written once',
    async (moment, method, path, nth, org) => {
      const { emulator } = orgs[org];
      const home = await mkdtemp(join(tmpdir(), 'service-crm-killed-'));
      const { accounts } = seedOrg(emulator.org, { companies: COMPANIES });
      const events = join(home, 'events.ndjson');
      await writeFile(
        events,
        toNdjson(sessionEvents({ companies: COMPANIES, busy: 2, newcomers: NEWCOMERS })),
      );
      const config = join(home, 'config.json');
      await writeFile(config, JSON.stringify(e2eConfig));
      const fields = await finish(start(cli, home, emulator, ['fields', 'apply']));
      expect(fields.code).toBe(0);

      const before = writesOf(emulator);
      const args = ['sync', '--events', events, '--config', config, '--json'];
      const child = start(cli, home, emulator, args);
      const restore = killWhenApplied(emulator, child, method, path, nth);
      const killed = await finish(child);
      restore();
      expect(killed.signal).toBe('SIGKILL');
      const atKill = writesOf(emulator);
      const partial = {
        updated: atKill.updated.length - before.updated.length,
        leads: atKill.leads.length - before.leads.length,
      };
      expect(partial.updated).toBeGreaterThan(0);

      const rerun = await finish(start(cli, home, emulator, args));
      expect(rerun.stderr).toBe('');
      expect(rerun.code).toBe(0);
      const report = JSON.parse(rerun.stdout);
      expect(report.counts).toMatchObject({ failed: 0, pending: 0 });
      // Mid-plan: the killed run had done part of the plan (the journal says so, or the re-run
      // read the records holding their values and planned them `unchanged`), the re-run the rest.
      const unchanged = (report.outcomes as { step: { code?: string } }[]).filter(
        (o) => o.step.code === 'unchanged',
      ).length;
      expect(report.counts['already-done'] + unchanged).toBeGreaterThan(0);
      expect(report.counts.written).toBeGreaterThan(0);
      console.log(
        `interrupted sync (${moment}): killed after ${partial.updated} updates and ${partial.leads} Leads; re-run ${JSON.stringify(report.counts)}`,
      );

      const after = writesOf(emulator);
      const updated = after.updated.slice(before.updated.length);
      const ours = new Set(accounts);
      expect(updated.filter((id) => ours.has(id)).sort()).toEqual([...accounts].sort());
      expect(new Set(updated).size).toBe(updated.length); // no Account updated twice
      const leads = after.leads.slice(before.leads.length);
      expect(leads.sort()).toEqual(
        Array.from({ length: NEWCOMERS }, (_, i) => `newcomer${i}@newco.io`).sort(),
      );
    },
    120_000,
  );
});
