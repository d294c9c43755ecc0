// Every ```ts block of the package READMEs and docs/ compiles against the built packages, as a
// user's file would; every block fenced ```ts run also runs, against a real `service-lookup
// serve` whose address and key are in SERVICE_BASE_URL and SERVICE_SECRET_KEY.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CodeBlock, documentationBlocks, repositoryRoot } from './markdown-blocks.ts';
import { filesWithUnfinishedCodeBlocks } from './pending.ts';

// Inside docs/ (outside node_modules, where Node strips no types), so a block's `@service/...` imports resolve to the workspace packages'
// published entry points (their dist), as they would in a user's project.
const workDir = join(import.meta.dirname, '../.code-blocks');
const blocks = documentationBlocks();
const fileOf = (index: number) => join(workDir, `block-${index}.ts`);
const where = (block: CodeBlock, offset = 0) => `${block.file}:${block.line + offset}`;
const pending = (block: CodeBlock) => filesWithUnfinishedCodeBlocks.includes(block.file);

beforeAll(() => {
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  writeFileSync(join(workDir, 'package.json'), '{ "type": "module" }\n');
  // `export {}` makes every block a module, so top-level await compiles as it runs.
  blocks.forEach((block, index) => {
    writeFileSync(fileOf(index), `${block.code}export {};\n`);
  });
});

describe('the code blocks of the documentation', () => {
  it('are found in the package READMEs and the guides', () => {
    const files = new Set(blocks.map((block) => block.file));
    expect(files).toContain('packages/crm-sync/README.md');
    expect(files).toContain('docs/crm-sync/planning.md');
    expect(blocks.some((block) => block.run)).toBe(true);
  });

  it('type-check against the built packages', () => {
    const base = ts.readConfigFile(join(repositoryRoot, 'tsconfig.base.json'), ts.sys.readFile);
    const { options } = ts.parseJsonConfigFileContent(
      { ...base.config, compilerOptions: { ...base.config.compilerOptions, types: ['node'] } },
      ts.sys,
      workDir,
    );
    const program = ts.createProgram(
      blocks.map((_, index) => fileOf(index)),
      options,
    );
    const failures: string[] = [];
    const unfinished: string[] = [];
    for (const diagnostic of ts.getPreEmitDiagnostics(program)) {
      const index = blocks.findIndex((_, i) => fileOf(i) === diagnostic.file?.fileName);
      const block = blocks[index];
      const text = ts.flattenDiagnosticMessageText(diagnostic.messageText, ' ');
      if (!block || !diagnostic.file || diagnostic.start === undefined) {
        failures.push(text);
        continue;
      }
      const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start);
      (pending(block) ? unfinished : failures).push(`${where(block, line)}: ${text}`);
    }
    if (unfinished.length > 0)
      console.log(`Not finished yet (test/pending.ts):\n  ${unfinished.join('\n  ')}`);
    expect(failures).toEqual([]);
  });
});

const runnable = blocks.flatMap((block, index) => (block.run ? [{ block, index }] : []));

describe('the runnable code blocks (```ts run)', () => {
  const secretKey = `sk_live_${randomBytes(16).toString('hex')}`;
  let server: ChildProcess | undefined;
  let baseUrl = '';

  beforeAll(async () => {
    server = spawn(
      process.execPath,
      [
        join(repositoryRoot, 'packages/lookup-core/dist/bin.js'),
        'serve',
        '--port',
        '0',
        '--events',
        join(repositoryRoot, 'packages/lookup-core/samples/events.ndjson'),
      ],
      { env: { ...process.env, SERVICE_SECRET_KEYS: secretKey } },
    );
    baseUrl = await new Promise<string>((resolve, reject) => {
      let output = '';
      server?.stdout?.on('data', (chunk) => {
        output += chunk;
        const listening = /listening on (http:\/\/\S+)/.exec(output);
        if (listening?.[1]) resolve(listening[1]);
      });
      server?.on('exit', (code) => reject(new Error(`service-lookup serve exited ${code}`)));
    });
  });
  afterAll(() => {
    server?.kill();
  });

  it.each(runnable.map(({ block, index }) => [where(block), index] as const))(
    '%s runs and exits 0 with nothing on stderr',
    async (_, index) => {
      const child = spawn(process.execPath, [fileOf(index)], {
        cwd: workDir,
        env: { ...process.env, SERVICE_BASE_URL: baseUrl, SERVICE_SECRET_KEY: secretKey },
      });
      let stderr = '';
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
      });
      child.stdout.resume();
      const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
      const block = blocks[index] as CodeBlock;
      if (pending(block) && (code !== 0 || stderr !== '')) {
        console.log(`Not finished yet (test/pending.ts): ${where(block)}\n${stderr}`);
        return;
      }
      expect(stderr).toBe('');
      expect(code).toBe(0);
    },
  );
});
