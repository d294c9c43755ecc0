/**
 * Builds the API reference (TypeDoc, options in ../typedoc.json) into docs/api and sorts what
 * TypeDoc warned about. A warning fails the build unless it is about a package listed in
 * test/pending.ts as not finished yet; those are printed so the debt stays visible.
 * `pnpm docs:api` runs this; test/reference.test.ts calls buildReference().
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { packagesWithUnfinishedReference } from '../test/pending.ts';

export const docsDir = join(import.meta.dirname, '..');
export const referenceDir = join(docsDir, 'api');

export interface ReferenceBuild {
  /** TypeDoc's exit code. */
  exitCode: number;
  /** Warnings and errors that fail the build, TypeDoc's text. */
  failures: string[];
  /** Warnings about packages whose reference is not finished yet. */
  pending: string[];
}

const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
const packageOfWarning = (line: string) => /defined in (@service\/[a-z-]+)\//.exec(line)?.[1];

/** Sorts TypeDoc's log lines into failures and warnings about packages still pending. */
export function sortWarnings(
  log: string,
  pendingPackages: readonly string[],
): Pick<ReferenceBuild, 'failures' | 'pending'> {
  const failures: string[] = [];
  const pending: string[] = [];
  for (const line of log.replace(ansi, '').split('\n')) {
    // `[warning] text`, or `file:line:column - [error] TS1234: text` for a compiler error.
    const match = /^(.*?)\[(warning|error)\] (.*)$/.exec(line.trim());
    if (!match?.[3] || /^Found \d+ errors and \d+ warnings$/.test(match[3])) continue;
    const text = `${match[1] ?? ''}${match[3]}`;
    const owner = packageOfWarning(text);
    if (match[2] === 'warning' && owner && pendingPackages.includes(owner)) pending.push(text);
    else failures.push(text);
  }
  return { failures, pending };
}

export async function buildReference(): Promise<ReferenceBuild> {
  const typedoc = join(
    dirname(createRequire(import.meta.url).resolve('typedoc/package.json')),
    'bin/typedoc',
  );
  // While a package is pending its warnings must not stop the build; sortWarnings fails the rest.
  const override =
    packagesWithUnfinishedReference.length > 0 ? ['--treatWarningsAsErrors', 'false'] : [];
  const child = spawn(process.execPath, [typedoc, '--options', 'typedoc.json', ...override], {
    cwd: docsDir,
    env: { ...process.env, NO_COLOR: '1' },
  });
  let log = '';
  child.stdout.on('data', (chunk) => {
    log += chunk;
  });
  child.stderr.on('data', (chunk) => {
    log += chunk;
  });
  const exitCode = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code ?? 1));
  });
  return { exitCode, ...sortWarnings(log, packagesWithUnfinishedReference) };
}

if (import.meta.main) {
  const build = await buildReference();
  if (build.pending.length > 0)
    console.log(
      `Not finished yet (${packagesWithUnfinishedReference.join(', ')}):\n  ${build.pending.join('\n  ')}`,
    );
  if (build.failures.length > 0) console.error(`Failed:\n  ${build.failures.join('\n  ')}`);
  else console.log(`API reference written to ${referenceDir}`);
  process.exitCode = build.failures.length > 0 || build.exitCode !== 0 ? 1 : 0;
}
