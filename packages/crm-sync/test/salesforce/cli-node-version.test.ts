// service-crm's built bin on a Node.js older than its engines range: one line saying which
// version it needs and exit 2 (a JSON error with --json), not undici's stack trace from inside
// jsforce; on a current Node the same bin is the command.
import { spawnSync } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { requires } from '@service/test-support';
import { missingOlderNode, olderNode } from '@service/test-support/older-node';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildCli, packageDir } from './build-cli.js';

const outDir = join(packageDir, 'node_modules/.cache/service-crm-node-version');
let cli = '';
let manifest: { engines: { node: string }; version: string };

beforeAll(async () => {
  cli = await buildCli(outDir);
  manifest = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
}, 60_000);

const run = (node: string, args: string[]) =>
  spawnSync(node, [cli, ...args], { cwd: packageDir, encoding: 'utf8', env: { PATH: '' } });

describe('service-crm on an older Node.js', requires(missingOlderNode), () => {
  const node = olderNode?.path ?? '';
  const needs = () =>
    `this command needs Node.js ${manifest.engines.node.replace('>=', '')} or newer (this is ${olderNode?.version}): install a current Node.js LTS release and run it again.`;

  it('says which version it needs and exits 2', () => {
    const result = run(node, ['fields', 'plan']);
    expect(result.status).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(`service-crm: ${needs()}\n`);
  });

  it('answers with a JSON error under --json', () => {
    const result = run(node, ['stage', '--json']);
    expect(result.status).toBe(2);
    expect(JSON.parse(result.stdout)).toEqual({
      error: { code: 'node_version', message: needs() },
    });
  });
});

describe('service-crm on a supported Node.js', () => {
  it('runs the command', () => {
    const result = run(process.execPath, ['--version']);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe(manifest.version);
    expect(result.status).toBe(0);
  });
});
