// Syncs of the sizes where Salesforce's documented limits bite, against an emulator that
// enforces them: 300 companies with an Account, a Contact and a Lead each (composite calls of
// several objects, an active Lead assignment rule), and 2,500 Contacts created in one run (a
// duplicate check of 2,500 emails, sent by GET).
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedOrg, sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { describe, expect, it } from 'vitest';
import type { PlanStep, SyncPlan } from '../../src/index.js';
import { applyPlan, setUpFields } from '../../src/salesforce.js';
import { connectTo, useEmulator } from './helpers.js';
import { runMain } from './in-process.js';

const env = useEmulator({ apiMax: 100_000 });
const COMPANIES = 300;

/** A session of `person{i}@company{i}.com` and one of `lead{i}@company{i}.com`, per company. */
function eventsWithLeads(): object[] {
  return sessionEvents({ companies: COMPANIES }).flatMap((event) => {
    const e = event as { id: string; visitor_id: string; contact: { email: string } };
    const email = e.contact.email.replace(/^person/, 'lead');
    return [
      event,
      { ...e, id: `${e.id}-lead`, visitor_id: `v-${email}`, contact: { ...e.contact, email } },
    ];
  });
}

describe('syncs within Salesforce limits', { timeout: 300_000 }, () => {
  it('updates an Account, a Contact and a Lead of 300 companies: every record written, no call refused, no owner changed', async () => {
    const { emulator } = env;
    const { org } = emulator;
    seedOrg(org, { companies: COMPANIES });
    const leads = Array.from({ length: COMPANIES }, (_, i) => {
      const id = org.insert('Lead', {
        LastName: `Lead ${i}`,
        Company: `Company ${i}`,
        Email: `lead${i}@company${i}.com`,
        Status: 'Open - Not Contacted',
        IsConverted: false,
      });
      org.derive('Lead', org.table('Lead').get(id) ?? { Id: id });
      return id;
    });
    expect(emulator.leadAssignmentOwner).toBeDefined(); // the org routes its Leads
    expect((await setUpFields(connectTo(emulator))).ok).toBe(true);

    const home = await mkdtemp(join(tmpdir(), 'service-crm-large-'));
    const events = join(home, 'events.ndjson');
    await writeFile(events, toNdjson(eventsWithLeads()));
    const tokens = emulator.issueTokens();
    const from = emulator.requests.length;
    const { code, out, err } = await runMain(['sync', '--events', events, '--json'], {
      SERVICE_CRM_HOME: home,
      SF_INSTANCE_URL: tokens.instanceUrl,
      SF_ACCESS_TOKEN: tokens.accessToken,
    });
    expect(err).toEqual([]);
    expect(code).toBe(0);
    const report = JSON.parse(out.at(-1) ?? '{}') as { counts: Record<string, number> };
    expect(report.counts).toMatchObject({ written: 3 * COMPANIES, failed: 0, pending: 0 });

    const sent = emulator.requests.slice(from);
    expect(sent.filter((r) => r.status >= 400)).toEqual([]);
    const composites = sent.filter((r) => r.path.endsWith('/composite/sobjects'));
    expect(composites).toHaveLength(5);
    expect(composites.every((r) => r.headers['sforce-auto-assign'] === 'FALSE')).toBe(true);
    const owners = new Set(leads.map((id) => org.table('Lead').get(id)?.OwnerId));
    expect(owners).toEqual(new Set([org.userId]));
    console.info(
      `${3 * COMPANIES} updates of three objects: ${composites.length} composite calls, ${sent.length} calls in all`,
    );
  });

  it('creates 2,500 Contacts once: no duplicate, and a second run creates none', async () => {
    const { emulator } = env;
    const emails = Array.from(
      { length: 2500 },
      (_, i) => `firstname.lastname${i}@company${i % COMPANIES}.com`,
    );
    const plan: SyncPlan = {
      steps: emails.map(
        (email): PlanStep => ({
          type: 'create',
          object: 'Contact',
          fields: { LastName: email.split('@')[0] ?? 'Doe', Email: email },
          idempotencyKey: `Contact:${email}`,
          duplicateCheck: { object: 'Contact', field: 'Email', value: email },
          links: {},
          motion: 'New visitor',
          subject: { kind: 'contact', email, domain: email.split('@')[1] ?? '' },
          reason: 'motion',
        }),
      ),
      summary: { updates: 0, creates: emails.length, feedPosts: 0, skips: 0, ambiguous: 0 },
    };
    const connection = connectTo(emulator);
    const from = emulator.requests.length;
    const first = await applyPlan(connection, plan);
    expect(first.counts).toMatchObject({ written: 2500, failed: 0, pending: 0 });
    const second = await applyPlan(connection, plan);
    expect(second.counts).toMatchObject({ written: 0, 'already-done': 2500, failed: 0 });

    const contacts = [...emulator.org.table('Contact').values()].filter((c) =>
      String(c.Email).startsWith('firstname.'),
    );
    expect(contacts).toHaveLength(2500);
    const queries = emulator.requests.slice(from).filter((r) => r.path.endsWith('/query'));
    expect(queries.every((r) => r.status === 200)).toBe(true);
    const longest = Math.max(
      ...queries.map((r) => encodeURIComponent(r.query.get('q') ?? '').length),
    );
    expect(longest).toBeLessThanOrEqual(12_000);
    console.info(
      `2,500 Contact creates: duplicate check in ${queries.length / 2} queries a run, the longest ${longest} bytes of URI`,
    );
  });
});
