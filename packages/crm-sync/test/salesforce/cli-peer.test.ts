// Issue 12 "install only what is used": @service/lookup-core is an optional peer dependency,
// loaded by `sync --events` alone. Without it (module resolution fails through a loader hook),
// sync says what to install and exits 2 before calling the org; the other commands run.
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { runCli } from '@service/test-support';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';
import { useEmulator } from './helpers.js';

const env = useEmulator();
let cli = '';
let home = '';
const HOOK = ['--import', join(import.meta.dirname, 'without-lookup-core.mjs')];

beforeAll(async () => {
  cli = await buildCli(join(packageDir, 'node_modules/.cache/service-crm-peer'));
  home = await mkdtemp(join(tmpdir(), 'service-crm-peer-'));
  await writeFile(
    join(home, 'events.ndjson'),
    toNdjson(sessionEvents({ companies: 2, busy: 0, newcomers: 0 })),
  );
}, 60_000);

function run(args: string[], node: readonly string[] = HOOK) {
  const tokens = env.emulator.issueTokens();
  return runCli(cli, args, {
    cwd: home,
    node,
    env: {
      SERVICE_CRM_HOME: home,
      SF_INSTANCE_URL: tokens.instanceUrl,
      SF_ACCESS_TOKEN: tokens.accessToken,
    },
  });
}

describe('@service/lookup-core as an optional peer dependency', () => {
  it('is a peer dependency marked optional, not a dependency', async () => {
    const manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
    expect(manifest.dependencies).not.toHaveProperty('@service/lookup-core');
    expect(manifest.peerDependencies).toHaveProperty('@service/lookup-core');
    expect(manifest.peerDependenciesMeta['@service/lookup-core']).toEqual({ optional: true });
  });

  it('without it, sync --events says what to install and exits 2 before calling the org', async () => {
    const before = env.emulator.requests.length;
    const result = await run(['sync', '--events', 'events.ndjson', '--dry-run']);
    expect(result.code).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      'service-crm: sync --events reads the events with @service/lookup-core, which is not installed: it is an optional peer dependency of @service/crm-sync. Install it beside it (npm install @service/lookup-core) and run the command again.',
    ]);
    const json = await run(['sync', '--events', 'events.ndjson', '--dry-run', '--json']);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout).error.code).toBe('missing_dependency');
    expect(env.emulator.requests.slice(before)).toEqual([]);
  });

  it('without it, the other commands run', async () => {
    const stage = await run(['stage', '--json']);
    expect(stage.stderr).toBe('');
    expect(stage.code).toBe(0);
    const exported = await run(['fields', 'export', '--out', 'dx']);
    expect(exported.code).toBe(0);
  });

  it('with it, sync --events runs', async () => {
    const result = await run(['sync', '--events', 'events.ndjson', '--dry-run', '--json'], []);
    expect(result.stderr).toBe('');
    expect(result.code).toBe(0);
    // Two companies of one person each, none in the (empty) org, and no motion creates: every
    // observed company and person gets one skip step (docs/crm-sync/planning.md, "The plan").
    const { summary, counts } = JSON.parse(result.stdout);
    expect(summary).toEqual({ updates: 0, creates: 0, feedPosts: 0, skips: 4, ambiguous: 0 });
    expect(counts).toMatchObject({ skipped: 4, written: 0, failed: 0 });
  }, 60_000); // PGlite starts in the child
});
