// An emulated org seeded for the chaos runs, the events of its people, and what a run left in
// it: the timeline posts per person and the Leads per newcomer, so a test can say "once each".
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Emulator } from '@service/salesforce-emulator';
import { seedOrg, sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { e2eConfig } from '../salesforce/e2e-config.js';

export interface ChaosOrg {
  readonly home: string;
  readonly events: string;
  readonly config: string;
  /** The sync's arguments. */
  readonly args: string[];
}

/** Seeds `companies` Accounts with a Contact each; `busy` of them get a timeline post. */
export async function chaosOrg(
  emulator: Emulator,
  sizes: { companies: number; busy: number; newcomers: number },
): Promise<ChaosOrg> {
  const home = await mkdtemp(join(tmpdir(), 'service-crm-chaos-'));
  seedOrg(emulator.org, { companies: sizes.companies });
  const events = join(home, 'events.ndjson');
  await writeFile(events, toNdjson(sessionEvents(sizes)));
  const config = join(home, 'config.json');
  await writeFile(config, JSON.stringify(e2eConfig));
  return { home, events, config, args: ['sync', '--events', events, '--config', config, '--json'] };
}

/** FeedItems per record posted on, and Leads per newcomer email, as the org holds them. */
export function heldBy(emulator: Emulator) {
  const postsPerRecord = new Map<string, number>();
  for (const item of emulator.org.table('FeedItem').values()) {
    const parent = String(item.ParentId);
    postsPerRecord.set(parent, (postsPerRecord.get(parent) ?? 0) + 1);
  }
  const leadsPerEmail = new Map<string, number>();
  for (const lead of emulator.org.table('Lead').values()) {
    const email = String(lead.Email);
    leadsPerEmail.set(email, (leadsPerEmail.get(email) ?? 0) + 1);
  }
  const most = (counts: Map<string, number>) => Math.max(0, ...counts.values());
  return {
    posts: emulator.org.table('FeedItem').size,
    recordsPostedOn: postsPerRecord.size,
    mostPostsOnOneRecord: most(postsPerRecord),
    newcomerLeads: [...leadsPerEmail.keys()].filter((e) => e.endsWith('@newco.io')).length,
    mostLeadsPerEmail: most(leadsPerEmail),
  };
}

/** What `heldBy` must say once every activity is posted once and every newcomer's Lead made once. */
export function onceEach(sizes: { busy: number; newcomers: number }) {
  return {
    posts: sizes.busy,
    recordsPostedOn: sizes.busy,
    mostPostsOnOneRecord: 1,
    newcomerLeads: sizes.newcomers,
    mostLeadsPerEmail: 1,
  };
}
