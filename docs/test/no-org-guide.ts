/**
 * The "five minutes, no org" guide (docs/crm-sync/no-org.md) as its checks run it: the files it
 * asks to save, its `npm install` line, its ```sh run blocks in order, and what the org must hold
 * at the end, read from the answers of the guide's own queries. Shared by no-org-guide.test.ts
 * (packages from this repository) and scripts/check-install.mjs (packed tarballs installed by
 * npm), so neither copies a command of the guide and the page cannot drift from its checks.
 * Plain TypeScript that Node runs as it is (the install check is a .mjs script).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const GUIDE_FILE = join(import.meta.dirname, '../crm-sync/no-org.md');

export interface Guide {
  /** Each ```json block the guide asks to "save as `NAME`", by that name. */
  readonly files: ReadonlyMap<string, string>;
  /** The guide's `npm install` line, as written. */
  readonly install: string;
  /** The packages that line installs, in its order. */
  readonly packages: readonly string[];
  /** The ```sh run blocks, in order. */
  readonly blocks: readonly string[];
}

/** The guide's files, install line and run blocks, from its Markdown. */
export function readGuide(markdown = readFileSync(GUIDE_FILE, 'utf8')): Guide {
  const files = new Map<string, string>();
  for (const match of markdown.matchAll(
    /save as `([^`]+)`\)?:?\n*(?:[^\n]*\n)*?```json\n([\s\S]*?)```/g,
  ))
    files.set(match[1] as string, match[2] as string);
  const install = /^```sh\n(?:[^\n]*\n)*?(npm install ([^\n]+))\n/m.exec(markdown);
  if (!install) throw new Error(`${GUIDE_FILE} has no \`npm install\` line in a sh block`);
  return {
    files,
    install: install[1] as string,
    packages: (install[2] as string).trim().split(/\s+/),
    blocks: [...markdown.matchAll(/```sh run\n([\s\S]*?)```/g)].map((m) => m[1] as string),
  };
}

/**
 * Saves the guide's files in `dir` and runs `install` then its run blocks there by bash (-e), as
 * one script; returns its output. The script leads a process group of its own, stopped whole when
 * the script ends, failed or not (a step that fails leaves the emulator running otherwise, holding
 * the output open), and after `timeoutMs`. `npx` is not let to fetch a package the project lacks:
 * the guide runs on what was installed.
 */
export async function runGuide(
  guide: Guide,
  dir: string,
  install: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<string> {
  for (const [name, text] of guide.files) writeFileSync(join(dir, name), text);
  const bash = spawn('bash', ['-e', '-c', [install, ...guide.blocks].join('\n')], {
    cwd: dir,
    env: { ...env, SERVICE_CRM_HOME: join(dir, 'home'), npm_config_yes: 'false' },
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const stopGroup = () => {
    try {
      process.kill(-(bash.pid as number), 'SIGTERM');
    } catch {
      // Nothing was left running.
    }
  };
  const timer = setTimeout(stopGroup, timeoutMs);
  let stdout = '';
  let stderr = '';
  bash.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  bash.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  bash.on('exit', stopGroup);
  const [code, signal] = (await once(bash, 'close')) as [number | null, string | null];
  clearTimeout(timer);
  if (code !== 0)
    throw new Error(`the guide's commands ended with ${code ?? signal}:\n${stdout}${stderr}`);
  return stdout;
}

type Row = Record<string, unknown>;

/** The records and feed elements in the JSON answers (one a line) the guide's output holds. */
function answers(output: string): { records: Row[]; feed: Row[] } {
  const records: Row[] = [];
  const feed: Row[] = [];
  for (const line of output.split('\n')) {
    let answer: { records?: Row[]; elements?: Row[] };
    try {
      answer = JSON.parse(line);
    } catch {
      continue; // Not an answer: a line of the CLI's or npm's.
    }
    if (typeof answer !== 'object' || answer === null) continue;
    records.push(...(answer.records ?? []));
    feed.push(...(answer.elements ?? []));
  }
  return { records, feed };
}

/**
 * What the guide's output lacks of its promised end: the fields created, the dry run's reasons, and
 * (read back from the emulator by the guide's queries) Service fields on the Acme Account and Raj
 * Patel's Contact, Ann Lee's Lead and its timeline post. Empty when all is there.
 */
export function whatTheGuideLacks(output: string): string[] {
  const { records, feed } = answers(output);
  const find = (type: string, field: string, value: string) =>
    records.find(
      (r) => (r.attributes as { type?: string } | undefined)?.type === type && r[field] === value,
    );
  const acme = find('Account', 'Name', 'Acme Corp');
  const raj = find('Contact', 'Email', 'raj.patel@acme.com');
  const ann = find('Lead', 'Email', 'ann.lee@acme.com');
  const expected: [string, boolean][] = [
    [
      'fields apply: "Created 61 fields, updated 0, granted 61"',
      /^Created 61 fields, updated 0, granted 61/m.test(output),
    ],
    [
      'the dry run: a step "would: update Account ... (N fields)"',
      /would: update Account \w+ \(\d+ fields\)/.test(output),
    ],
    [
      'the Acme Corp Account with ServiceSessions__c and ServicePurchaseIntent__c',
      Number(acme?.ServiceSessions__c) > 0 && typeof acme?.ServicePurchaseIntent__c === 'string',
    ],
    ["Raj Patel's Contact with ServiceSessions__c", Number(raj?.ServiceSessions__c) > 0],
    [
      'Ann Lee\'s Lead created by the motion "Very high intent"',
      ann?.ServiceCreationTrigger__c === 'Very high intent',
    ],
    [
      "a timeline post (FeedItem) on the Lead's feed",
      feed.some((e) => e.feedElementType === 'FeedItem'),
    ],
  ];
  return expected.filter(([, present]) => !present).map(([what]) => what);
}

/** Runs the guide (`runGuide`) and throws naming what its output lacks of its promised end. */
export async function runGuideToItsEnd(...args: Parameters<typeof runGuide>): Promise<void> {
  const output = await runGuide(...args);
  const lacks = whatTheGuideLacks(output);
  if (lacks.length > 0)
    throw new Error(`the guide's output lacks: ${lacks.join('; ')}\n\n${output.trim()}`);
}
