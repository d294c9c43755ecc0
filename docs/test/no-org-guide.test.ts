// The "five minutes, no org" guide runs as written: its files saved, its ```sh run blocks run in
// order by bash in an empty directory whose node_modules holds the built packages (as `npm install`
// would), and it ends with Service fields on the records and a timeline post in the emulator.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repositoryRoot } from './markdown-blocks.ts';

const GUIDE = readFileSync(join(repositoryRoot, 'docs/crm-sync/no-org.md'), 'utf8');
const PACKAGES = {
  '@service/crm-sync': ['packages/crm-sync', { 'service-crm': 'dist/cli.js' }],
  '@service/lookup-core': ['packages/lookup-core', {}],
  '@service/salesforce-emulator': [
    'tools/salesforce-emulator',
    { 'salesforce-emulator': 'dist/cli.js' },
  ],
} as const;
const dir = mkdtempSync(join(tmpdir(), 'no-org-guide-'));

afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Each ```json block the guide asks to "save as `NAME`", by that name. */
function savedFiles(): Map<string, string> {
  const files = new Map<string, string>();
  for (const match of GUIDE.matchAll(
    /save as `([^`]+)`\)?:?\n*(?:[^\n]*\n)*?```json\n([\s\S]*?)```/g,
  ))
    files.set(match[1] as string, match[2] as string);
  return files;
}

/**
 * The ```sh run blocks, in order, as one script; should one fail, the trap stops the emulator it
 * started (which holds the output pipe open otherwise).
 */
function script(): string {
  const blocks = [...GUIDE.matchAll(/```sh run\n([\s\S]*?)```/g)].map((m) => m[1]);
  return [
    `trap 'test -n "$SF_EMULATOR_PID" && kill "$SF_EMULATOR_PID" 2>/dev/null' EXIT`,
    ...blocks,
  ].join('\n');
}

function install(): void {
  mkdirSync(join(dir, 'node_modules/.bin'), { recursive: true });
  mkdirSync(join(dir, 'node_modules/@service'));
  for (const [name, [path, bins]] of Object.entries(PACKAGES)) {
    symlinkSync(join(repositoryRoot, path), join(dir, 'node_modules', name));
    for (const [bin, file] of Object.entries(bins))
      symlinkSync(join(repositoryRoot, path, file), join(dir, 'node_modules/.bin', bin));
  }
}

describe('the no-org guide', () => {
  it('ends with Service fields on the records and a timeline post on the new Lead', async () => {
    install();
    const files = savedFiles();
    expect([...files.keys()].sort()).toEqual(['seed.json', 'service-crm.json']);
    for (const [name, text] of files) writeFileSync(join(dir, name), text);
    const { stdout } = await promisify(execFile)('bash', ['-e', '-c', script()], {
      cwd: dir,
      env: { ...process.env, SERVICE_CRM_HOME: join(dir, 'home'), npm_config_offline: 'true' },
      timeout: 100_000,
    });
    expect(stdout).toMatch(/^Created 61 fields, updated 0, granted 61/m);
    expect(stdout).toMatch(/would: update Account \w+ \(\d+ fields\)/);
    expect(stdout).toMatch(/"Name":"Acme Corp","ServiceSessions__c":[1-9]/);
    expect(stdout).toMatch(/"Email":"raj.patel@acme.com","ServiceSessions__c":[1-9]/);
    expect(stdout).toMatch(
      /"Email":"ann.lee@acme.com","ServiceCreationTrigger__c":"Very high intent"/,
    );
    expect(stdout).toMatch(/"elements":\[\{"id":"\w+","feedElementType":"FeedItem"/);
  });
});
