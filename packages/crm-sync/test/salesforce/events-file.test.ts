// `sync --events FILE` reads the file with lookup-core's byte-level NDJSON reader: a line that
// is not UTF-8 is skipped with its line number and why (a text reader would have turned its bytes
// into U+FFFD and stored a mangled event); a file that cannot be read is a usage error.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedOrg, sessionEvents, toNdjson } from '@service/salesforce-emulator';
import { beforeAll, describe, expect, it } from 'vitest';
import { useEmulator } from './helpers.js';
import { runMain } from './in-process.js';

const env = useEmulator({ validateSchema: false });
let home = '';

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'service-crm-events-file-'));
  seedOrg(env.emulator.org, { companies: 3 });
});

function dryRun(events: string) {
  const tokens = env.emulator.issueTokens();
  return runMain(['sync', '--dry-run', '--events', events], {
    SERVICE_CRM_HOME: home,
    SF_INSTANCE_URL: tokens.instanceUrl,
    SF_ACCESS_TOKEN: tokens.accessToken,
  });
}

describe('sync --events reads the events file', () => {
  it('skips a line that is not UTF-8, by its line number, and plans from the others', async () => {
    const file = join(home, 'events.ndjson');
    const good = Buffer.from(toNdjson(sessionEvents({ companies: 3 })));
    const lines = good.toString('utf8').trimEnd().split('\n').length;
    // A fourth company's session, its city written in Latin-1 ("é" as 0xE9, not UTF-8).
    const [fourth] = sessionEvents({ companies: 4 }).slice(-1);
    const latin1 = Buffer.from(toNdjson([{ ...fourth, city: 'Orl\xe9ans' }]), 'latin1');
    await writeFile(file, Buffer.concat([good, latin1]));
    const { code, out, err } = await dryRun(file);
    expect(err).toEqual([`${file}:${lines + 1}: skipped: not valid UTF-8`]);
    expect(code).toBe(0);
    expect(out.at(-1)).toMatch(/^Dry run: 0 written, [1-9]\d* planned/);
  });

  it('refuses a file that is missing or not a file, saying which', async () => {
    const missing = await dryRun(join(home, 'none.ndjson'));
    expect(missing.code).toBe(2);
    expect(missing.err.join('\n')).toMatch(/Cannot read the events file .*none\.ndjson: ENOENT/);
    const dir = join(home, 'a-directory');
    await mkdir(dir);
    const directory = await dryRun(dir);
    expect(directory.code).toBe(2);
    expect(directory.err.join('\n')).toMatch(
      /Cannot read the events file .*a-directory: not a file/,
    );
  });
});
