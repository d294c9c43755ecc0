// A timeline is posted once per activity: a second sync of the same events posts nothing, and
// a sync killed with SIGKILL after the org made a post (its answer never heard) then run again
// leaves one post per activity. docs/crm-sync/planning.md promises it ("the same activity is
// posted once"); the post carries a reference the next run looks for in the org.
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from '../salesforce/build-cli.js';
import { finish, killWhenApplied, start } from '../salesforce/cli-process.js';
import { useEmulator } from '../salesforce/helpers.js';
import { chaosOrg, heldBy, onceEach } from './sync-org.js';

const orgs = [useEmulator(), useEmulator()] as const;
const outDir = join(packageDir, 'node_modules/.cache/service-crm-posted-once-test');
const SIZES = { companies: 40, busy: 25, newcomers: 3 };
let cli = '';

beforeAll(async () => {
  cli = await buildCli(outDir);
}, 60_000);

describe('service-crm sync posts each timeline once', () => {
  it('two consecutive syncs leave one post per activity', async () => {
    const { emulator } = orgs[0];
    const org = await chaosOrg(emulator, SIZES);
    expect((await finish(start(cli, org.home, emulator, ['fields', 'apply']))).code).toBe(0);

    const first = await finish(start(cli, org.home, emulator, org.args));
    expect(first.code).toBe(0);
    expect(heldBy(emulator)).toMatchObject({ posts: SIZES.busy, mostPostsOnOneRecord: 1 });

    const second = await finish(start(cli, org.home, emulator, org.args));
    expect(second.code).toBe(0);
    const report = JSON.parse(second.stdout);
    const posts = report.outcomes.filter(
      (o: { step: { type: string } }) => o.step.type === 'feedPost',
    );
    expect(posts.map((o: { status: string }) => o.status)).toEqual(
      Array(SIZES.busy).fill('already-done'),
    );
    expect(heldBy(emulator)).toMatchObject({
      posts: SIZES.busy,
      recordsPostedOn: SIZES.busy,
      mostPostsOnOneRecord: 1,
    });
  }, 120_000);

  it('a sync killed after the org made a post, run again, leaves one post per activity', async () => {
    const { emulator } = orgs[1];
    const org = await chaosOrg(emulator, SIZES);
    expect((await finish(start(cli, org.home, emulator, ['fields', 'apply']))).code).toBe(0);

    const child = start(cli, org.home, emulator, org.args);
    const restore = killWhenApplied(emulator, child, 'POST', /\/chatter\/feed-elements$/, 10);
    const killed = await finish(child);
    restore();
    expect(killed.signal).toBe('SIGKILL');
    expect(heldBy(emulator).posts).toBe(10);

    const rerun = await finish(start(cli, org.home, emulator, org.args));
    expect(rerun.stderr).toBe('');
    expect(rerun.code).toBe(0);
    expect(JSON.parse(rerun.stdout).counts).toMatchObject({ failed: 0, pending: 0 });
    expect(heldBy(emulator)).toMatchObject(onceEach(SIZES));
  }, 120_000);
});
