// service-lookup's bin on a Node.js older than its engines range: one line saying which version
// it needs and exit 2, not a stack trace from a dependency; on a current Node it is the command.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { requires } from '@service/test-support';
import { missingOlderNode, olderNode } from '@service/test-support/older-node';
import { build } from 'tsup';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PACKAGE } from './support/cli.js';

let bin = '';
let outDir = '';
beforeAll(async () => {
  // Inside the package, so that the built command resolves its dependencies as installed.
  const cache = join(PACKAGE, 'node_modules/.cache');
  await mkdir(cache, { recursive: true });
  outDir = await mkdtemp(join(cache, 'service-lookup-bin-'));
  // The package's own build configuration: what matters is the order in the built output.
  await build({
    config: join(PACKAGE, 'tsup.config.ts'),
    entry: { bin: join(PACKAGE, 'src/cli/bin.ts'), cli: join(PACKAGE, 'src/cli/cli.ts') },
    outDir,
    format: ['esm'],
    dts: false,
    sourcemap: false,
    silent: true,
    external: [/^[^./]/],
  });
  bin = join(outDir, 'bin.js');
}, 60_000);
afterAll(() => rm(outDir, { recursive: true, force: true }));

describe('service-lookup on an older Node.js', requires(missingOlderNode), () => {
  it('says which version it needs and exits 2', async () => {
    const engines = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')).engines.node;
    const run = spawnSync(olderNode?.path ?? '', [bin, 'serve', '--port', '0'], {
      cwd: PACKAGE,
      encoding: 'utf8',
    });
    expect(run.status).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `service-lookup: this command needs Node.js ${engines.replace('>=', '')} or newer (this is ${olderNode?.version}): install a current Node.js LTS release and run it again.\n`,
    );
  });
});

describe('service-lookup on a supported Node.js', () => {
  it('runs the command', async () => {
    const version = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')).version;
    const run = spawnSync(process.execPath, [bin, '--version'], { cwd: PACKAGE, encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe(version);
    expect(run.status).toBe(0);
  });
});
