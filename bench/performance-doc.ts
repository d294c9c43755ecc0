// docs/performance.md: one section per benchmark, each replaced whole by the benchmark's latest
// run (what it measures, when, where, on which commit, and what it printed). Never edited by hand.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const DOC = join(import.meta.dirname, '../docs/performance.md');
const HEADER = `# Performance

What each benchmark under \`bench/\` measures, and the figures of its latest run. This page is
written by \`pnpm bench\` (each run replaces its benchmark's section); do not edit it by hand.
Run one benchmark with \`pnpm bench <name>\`, for example \`pnpm bench lookup\`.
`;

export interface BenchRun {
  name: string;
  method: string;
  output: string;
  passed: boolean;
}

const commit = () => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
  } catch {
    return 'unknown';
  }
};

const machine = () => {
  const cores = cpus();
  return `${cores[0]?.model.trim() ?? 'unknown CPU'}, ${cores.length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, Node ${process.version}`;
};

const markers = (name: string) => [`<!-- ${name}:start -->`, `<!-- ${name}:end -->`] as const;

function sectionOf(run: BenchRun): string {
  const [start, end] = markers(run.name);
  // Control characters (colours, progress bars) would only clutter the page.
  const printed = stripVTControlCharacters(run.output).trimEnd();
  return `${start}
## ${run.name.replace(/\.bench\.ts$/, '')}

${run.method}

Latest run: ${new Date().toISOString().slice(0, 10)}, commit ${commit()}, ${machine()}; ${run.passed ? 'passed' : 'FAILED'}.

\`\`\`text
${printed}
\`\`\`
${end}`;
}

/** `doc` with `section` in place of the one named `name`, or added at the end. */
function withSection(doc: string, name: string, section: string): string {
  const [start, end] = markers(name);
  const from = doc.indexOf(start);
  const to = doc.indexOf(end);
  return from !== -1 && to > from
    ? `${doc.slice(0, from)}${section}${doc.slice(to + end.length)}`
    : `${doc.trimEnd()}\n\n${section}\n`;
}

const read = () => (existsSync(DOC) ? readFileSync(DOC, 'utf8') : HEADER);

/** Writes the run's section: what the benchmark measures and what this run printed. */
export function writePerformanceSection(run: BenchRun): void {
  writeFileSync(DOC, withSection(read(), run.name, sectionOf(run)));
}

/** Adds a section saying what it measures for each benchmark that has none yet. */
export function describeUnrunBenchmarks(benches: Array<{ name: string; method: string }>): void {
  let doc = read();
  for (const { name, method } of benches) {
    const [start, end] = markers(name);
    if (doc.includes(start)) continue;
    const title = name.replace(/\.bench\.ts$/, '');
    doc = withSection(
      doc,
      name,
      `${start}\n## ${title}\n\n${method}\n\nNo run recorded yet.\n${end}`,
    );
  }
  writeFileSync(DOC, doc);
}
