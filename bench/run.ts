// Runs every benchmark under bench/ in turn. Each prints its own figures and ratios.
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';

const only = process.argv.slice(2).filter((arg) => arg !== '--');
const benches = readdirSync(import.meta.dirname)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort();

if (benches.length === 0) {
  console.error(`no benchmark matches ${only.join(' ')}`);
  process.exit(1);
}

let failed = 0;
for (const file of benches) {
  console.log(`\n=== ${file} ===`);
  const result = spawnSync(process.execPath, [file], {
    cwd: import.meta.dirname,
    stdio: 'inherit',
  });
  if (result.status !== 0) failed++;
}
process.exit(failed === 0 ? 0 : 1);
