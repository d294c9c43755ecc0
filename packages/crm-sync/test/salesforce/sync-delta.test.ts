// Issue 16 done-when, through `service-crm sync` (in process, against the emulator): an
// unchanged re-sync writes nothing, one changed company writes only its records' changed
// fields, a read after an org-side change picks up exactly that change, and the kept snapshot
// plans offline (`sync --dry-run --snapshot FILE`) as the org would.
import { mkdtemp, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RecordedRequest } from '@service/salesforce-emulator';
import { seedOrg, sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { runMain } from './in-process.js';

const env = useEmulator();
const COMPANIES = 200;
const HOUR = 3_600_000;
let home = '';
let events = '';
let seeded: ReturnType<typeof seedOrg>;
const start = Date.now();

interface SyncReport {
  summary: { updates: number; creates: number; skips: number };
  counts: Record<string, number>;
  reads: Record<string, { mode: string; records: number; deleted: number }>;
  budget: { estimate: { total: number }; usage?: { used: number; max: number } };
  outcomes: { status: string; step: { type: string; code?: string } }[];
}

function run(args: string[]) {
  const tokens = env.emulator.issueTokens();
  return runMain(args, {
    SERVICE_CRM_HOME: home,
    SF_INSTANCE_URL: tokens.instanceUrl,
    SF_ACCESS_TOKEN: tokens.accessToken,
  });
}

/** A sync with `--json`: its report and every request the org received meanwhile. */
async function sync(...extra: string[]): Promise<{ report: SyncReport; sent: RecordedRequest[] }> {
  const from = env.emulator.requests.length;
  const { code, out, err } = await run(['sync', '--events', events, '--json', ...extra]);
  expect(err.filter((l) => !/not readable/.test(l))).toEqual([]);
  expect(code).toBe(0);
  return { report: JSON.parse(out.at(-1) ?? '{}'), sent: env.emulator.requests.slice(from) };
}

const writesOf = (sent: readonly RecordedRequest[]) =>
  sent.filter((r) => r.method === 'PATCH' || r.method === 'POST' || r.method === 'PUT');

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'service-crm-delta-'));
  const { org } = env.emulator;
  org.advance(-24 * 3600); // the org's records were made a day ago
  seeded = seedOrg(org, { companies: COMPANIES, opportunities: 10 });
  org.advance(24 * 3600);
  expect((await setUpFields(connectTo(env.emulator))).ok).toBe(true);
  events = join(home, 'events.ndjson');
  await writeFile(events, toNdjson(sessionEvents({ companies: COMPANIES })));
}, 60_000);

afterEach(() => {
  vi.useRealTimers();
});

/** Time passes between runs, here and in the org alike (both read this process's clock). */
function later(ms: number) {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(start + ms);
}

describe('sync writes and reads only what changed', { timeout: 120_000 }, () => {
  it('an unchanged re-sync makes no write call, and a quiet one few calls in all', async () => {
    const first = await sync();
    expect(first.report.counts).toMatchObject({ written: 2 * COMPANIES, failed: 0 });
    expect(first.report.reads.Account).toEqual({ mode: 'full', records: COMPANIES, deleted: 0 });
    // The snapshot is kept next to the token file, private.
    const kept = join(
      home,
      `crm-snapshot-${new URL(env.emulator.url).host.replace(':', '_')}.json`,
    );
    expect((await stat(kept)).mode & 0o777).toBe(0o600);

    later(HOUR);
    const second = await sync();
    expect(writesOf(second.sent)).toEqual([]);
    expect(second.report.summary.updates).toBe(0);
    expect(second.report.counts).toMatchObject({ written: 0, skipped: 2 * COMPANIES });
    expect(second.report.outcomes.every((o) => o.step.code === 'unchanged')).toBe(true);
    // It reads again what the first run wrote (their SystemModstamp moved): one query per object,
    // and one COUNT() per object.
    expect(second.report.reads.Contact).toMatchObject({ mode: 'changes', records: COMPANIES });
    expect(second.sent.length).toBeLessThanOrEqual(14);
    console.info(`unchanged re-sync after a writing sync: ${second.sent.length} API calls`);

    later(2 * HOUR);
    const third = await sync();
    expect(writesOf(third.sent)).toEqual([]);
    expect(Object.values(third.report.reads).map((r) => r.records)).toEqual([0, 0, 0, 0]);
    expect(third.sent.map((r) => r.path.replace(/.*\/v59\.0/, ''))).toEqual([
      '/queryAll',
      '/queryAll',
      '/queryAll',
      '/queryAll',
      '/query',
      '/query',
      '/query',
      '/query',
    ]);
    console.info(`quiet unchanged re-sync: ${third.sent.length} API calls`);
  });

  it('one changed company writes only its records, only the changed fields; a read picks up exactly an org-side change', async () => {
    const { org } = env.emulator;
    const account = seeded.accounts[5] ?? '';
    const contact = seeded.contacts[5] ?? '';
    const before = {
      [account]: { ...org.table('Account').get(account) },
      [contact]: { ...org.table('Contact').get(contact) },
    };
    // Company 5 comes back: a second session for its person.
    const more = sessionEvents({ companies: COMPANIES }).concat(
      sessionEvents({ companies: 6, busy: 6 }).filter((e) => (e as { id: string }).id === 's-5-1'),
    );
    await writeFile(events, toNdjson(more));
    // And an admin edits one Contact of another company in the org.
    later(3 * HOUR);
    const edited = org.table('Contact').get(seeded.contacts[9] ?? '');
    if (edited) org.change('Contact', edited, { ServiceSessions__c: 99 });
    later(3 * HOUR + 60_000);

    const { report, sent } = await sync();
    expect(report.reads.Contact).toEqual({ mode: 'changes', records: 1, deleted: 0 });
    expect(report.reads.Account).toMatchObject({ records: 0 });
    const composite = writesOf(sent);
    expect(composite.map((r) => r.path)).toEqual(['/services/data/v59.0/composite/sobjects']);
    // The budget's /limits call is the fresh read the writes check the reserve against.
    expect(sent.filter((r) => r.path.endsWith('/limits'))).toHaveLength(1);
    const records = JSON.parse(composite[0]?.body ?? '{}').records as Record<string, unknown>[];
    // Company 5's two records, and the Contact the admin edited back to the observed value.
    expect(records.map((r) => r.id).sort()).toEqual(
      [account, contact, seeded.contacts[9] ?? ''].sort(),
    );
    expect(records.find((r) => r.id === seeded.contacts[9])).toEqual({
      attributes: { type: 'Contact' },
      id: seeded.contacts[9],
      ServiceSessions__c: 1,
    });
    for (const record of records.filter((r) => r.id !== seeded.contacts[9])) {
      const { attributes: _a, id, ...fields } = record;
      const was = before[String(id)] ?? {};
      expect(Object.keys(fields).length).toBeGreaterThan(0);
      // Only changed fields: each one sent differs from what the record held.
      for (const [field, value] of Object.entries(fields)) expect(was[field]).not.toEqual(value);
      expect(fields).toMatchObject({ ServiceSessions__c: 2 });
    }
  });

  it('plans offline from a snapshot file, as the org would', async () => {
    later(4 * HOUR);
    const out = join(home, 'crm.json');
    const written = await run(['snapshot', '--out', out]);
    expect(written.code).toBe(0);
    expect(written.out.join('\n')).toMatch(new RegExp(`${COMPANIES} Accounts`));
    const from = env.emulator.requests.length;
    const offline = await runMain(
      ['sync', '--dry-run', '--snapshot', out, '--events', events, '--json'],
      { SERVICE_CRM_HOME: join(home, 'nowhere') },
    );
    expect(offline.code).toBe(0);
    expect(env.emulator.requests.length).toBe(from); // no org, no call
    const report = JSON.parse(offline.out.at(-1) ?? '{}') as SyncReport;
    const online = await sync('--dry-run');
    expect(report.summary).toEqual(online.report.summary);
    expect(report.counts).toEqual(online.report.counts);

    const broken = join(home, 'broken.json');
    await writeFile(broken, '{"format":"something else"}');
    const refused = await run(['sync', '--dry-run', '--snapshot', broken, '--events', events]);
    expect(refused.code).toBe(2);
    expect(refused.err.join('\n')).toMatch(
      /is not a CRM snapshot \(no "format": "service-crm-snapshot"\)/,
    );
  });

  it('prints the API budget on a dry run, and a real run that would cross the reserve does not start', async () => {
    later(5 * HOUR);
    const { emulator } = env;
    const dry = await run(['sync', '--events', events, '--dry-run', '--full']);
    expect(dry.code).toBe(0);
    // 400 updates: 2 composite calls of 200, and the limit check before them.
    expect(dry.out.join('\n')).toMatch(
      /API budget: reads made \d+ calls; the writes would make 3 \(2 composite, 0 for creates, 0 feed posts, 1 limit check\); the org has \d+ of 15000 calls left today \(reserve 300\): \d+ would be left\./,
    );
    emulator.setApiUsed(15000 - 300 - 2); // 302 left: 3 calls would leave 299, under 300
    const from = emulator.requests.length;
    const refused = await run(['sync', '--events', events, '--full']);
    expect(refused.code).toBe(5);
    expect(refused.err.join('\n')).toMatch(/under the reserve\. Not started/);
    expect(writesOf(emulator.requests.slice(from))).toEqual([]);
    const allowed = await run(['sync', '--events', events, '--full', '--api-reserve', '0']);
    expect(allowed.code).toBe(0);
    expect(allowed.out.join('\n')).toMatch(/400 written/);
    emulator.setApiUsed(0);
  });
});
