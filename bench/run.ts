// Runs every benchmark under bench/ in turn (or those whose file names contain an argument). Each
// prints its own figures and ratios; this writes them, with how each measures, into
// docs/performance.md, one section per benchmark, so the figures there are always a run's.
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describeUnrunBenchmarks, writePerformanceSection } from './performance-doc.ts';

const only = process.argv.slice(2).filter((arg) => arg !== '--');
const allBenches = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
const benches = allBenches.filter((f) => only.length === 0 || only.some((o) => f.includes(o)));

if (benches.length === 0) {
  console.error(`no benchmark matches ${only.join(' ')}`);
  process.exit(1);
}

/** Runs `file`, echoing its output; resolves with the exit code and what it printed. */
function runBench(file: string): Promise<{ code: number; output: string }> {
  const child = spawn(process.execPath, [file], {
    cwd: import.meta.dirname,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    output += chunk;
  });
  child.stderr.on('data', (chunk: Buffer) => {
    process.stderr.write(chunk);
    output += chunk;
  });
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ code: code ?? 1, output })),
  );
}

/** The benchmark's opening comment: how it measures. */
const methodOf = (file: string) =>
  readFileSync(join(import.meta.dirname, file), 'utf8')
    .split('\n')
    .filter((_, i, lines) => lines.slice(0, i + 1).every((l) => l.startsWith('//')))
    .map((line) => line.replace(/^\/\/ ?/, ''))
    .join('\n');

describeUnrunBenchmarks(allBenches.map((name) => ({ name, method: methodOf(name) })));
let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file} ===`);
  const { code, output } = await runBench(file);
  if (code !== 0) failed++;
  writePerformanceSection({ name: file, method: methodOf(file), output, passed: code === 0 });
}
process.exit(failed === 0 ? 0 : 1);
