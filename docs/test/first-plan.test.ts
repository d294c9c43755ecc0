// The first code of the crm-sync README plans real steps: run as a user's file would run it,
// it prints at least one step with its reason, from the sample events shipped with lookup-core.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { codeBlocks, repositoryRoot } from './markdown-blocks.ts';

const README = 'packages/crm-sync/README.md';
// Inside docs/, outside node_modules: the block's imports resolve to the built packages.
const workDir = join(import.meta.dirname, '../.first-plan');

afterAll(() => rmSync(workDir, { recursive: true, force: true }));

describe("the crm-sync README's first example", () => {
  it('prints an update with its reason and the counts', async () => {
    const first = codeBlocks(README, readFileSync(join(repositoryRoot, README), 'utf8')).find(
      (block) => block.run,
    );
    mkdirSync(workDir, { recursive: true });
    writeFileSync(join(workDir, 'package.json'), '{ "type": "module" }\n');
    writeFileSync(join(workDir, 'first.ts'), `${first?.code ?? ''}export {};\n`);
    const { stdout } = await promisify(execFile)(process.execPath, ['first.ts'], { cwd: workDir });
    expect(stdout).toMatch(
      /^update Account 001000000000001AAA: \d+ fields +- Account 001000000000001AAA has the website domain acme\.com$/m,
    );
    expect(stdout).toMatch(/^1 updates, 0 creates, 0 feed posts, [1-9]\d* skipped/m);
  });
});
