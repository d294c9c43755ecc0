// The "Runtimes" table of the root README, generated from the last run's rows, between two markers.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const README = fileURLToPath(new URL('../../README.md', import.meta.url));
export const START = '<!-- runtimes:start -->';
export const END = '<!-- runtimes:end -->';

const HEADER = ['Package', 'Runtime', 'Version', 'Tested', 'Flags and permissions'];

export function renderTable(rows) {
  const cell = (text) => String(text).replaceAll('|', '\\|');
  const lines = rows.map((r) =>
    [
      r.package,
      r.variant ? `${r.runtime}, ${r.variant}` : r.runtime,
      r.version,
      r.tested,
      r.flags,
    ].map(cell),
  );
  return [HEADER, HEADER.map(() => '---'), ...lines]
    .map((cells) => `| ${cells.join(' | ')} |`)
    .join('\n');
}

/** `readme` with the text between the markers replaced by the table of `rows`. */
export function withRuntimesTable(readme, rows) {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start === -1 || end < start) throw new Error(`README.md has no ${START} ... ${END} section`);
  return `${readme.slice(0, start + START.length)}\n${renderTable(rows)}\n${readme.slice(end)}`;
}

export function writeRuntimesTable(rows) {
  writeFileSync(README, withRuntimesTable(readFileSync(README, 'utf8'), rows));
}

/** The rows of the table in `readme`, as `{ package, runtime, version, tested, flags }`. */
export function readRuntimesTable(readme) {
  const section = readme.slice(readme.indexOf(START) + START.length, readme.indexOf(END));
  return section
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('| ') && !line.startsWith('| ---') && !line.startsWith(`| ${HEADER[0]} `),
    )
    .map((line) => {
      const [pkg, runtime, version, tested, flags] = line.slice(2, -2).split(' | ');
      return { package: pkg, runtime, version, tested, flags };
    });
}
