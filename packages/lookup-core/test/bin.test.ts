// service-lookup's bin on a Node.js older than its engines range: one line saying which version
// it needs and exit 2, not a stack trace from a dependency; on a current Node it is the command.
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { requires, ServerProcess } from '@service/test-support';
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

/** The environment of `serve` as the kernel holds it, read once the server listens. */
async function servingEnvironment(env: Record<string, string>): Promise<Map<string, string>> {
  const { server } = await ServerProcess.start({
    command: process.execPath,
    args: [bin, 'serve', '--port', '0'],
    cwd: PACKAGE,
    env: { ...env, SERVICE_SECRET_KEYS: 'sk_live_test_0123456789abcdefghijkl' },
  });
  try {
    // The pid the test started is the one serving: the command replaced its image, no child.
    const environ = await readFile(`/proc/${server.pid}/environ`, 'utf8');
    return new Map(
      environ
        .split('\0')
        .filter(Boolean)
        .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
    );
  } finally {
    await server.stop();
  }
}

const glibc = (process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header
  ?.glibcVersionRuntime;

// The setting is glibc's: on another C library (or platform) the command does not restart.
describe.runIf(glibc !== undefined)('service-lookup serve on glibc', () => {
  it("serves with glibc's trim threshold at 128 KiB, in the process it was started as", async () => {
    // Empty counts as not given (the run's own environment might set it).
    const environment = await servingEnvironment({ MALLOC_TRIM_THRESHOLD_: '' });
    expect(environment.get('MALLOC_TRIM_THRESHOLD_')).toBe('131072');
  }, 60_000);

  it('keeps a trim threshold it was given', async () => {
    const environment = await servingEnvironment({ MALLOC_TRIM_THRESHOLD_: '4194304' });
    expect(environment.get('MALLOC_TRIM_THRESHOLD_')).toBe('4194304');
  }, 60_000);
});
