// Proves each public package works as installed: packs every package, installs the tarballs into
// empty projects with npm, and makes real calls through every entry under `import` and under
// `require`, on the current Node.js and on the oldest each package supports (install-check/runtimes.mjs).
// lookup-client looks up against `service-lookup serve` started from the installed lookup-core;
// lookup-core answers through toNodeListener; crm-sync plans a pipeline stage and its command
// prints its version; the emulator answers a query; a scratch project's vitest file syncs into
// the emulator through crm-sync's API; the no-org guide's commands run as written from the
// tarballs (install-check/no-org-guide.mjs). One line per runtime, package and module format; exits 1 if any failed.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { noOrgGuide } from './install-check/no-org-guide.mjs';
import { install, onPath, packAll } from './install-check/projects.mjs';
import { nodeRuntimes } from './install-check/runtimes.mjs';
import { scratchSync } from './install-check/scratch-sync.mjs';
import { serve } from './install-check/serve.mjs';

const SAMPLE_EVENTS = new URL('../samples/events.ndjson', import.meta.url).pathname;
const SAMPLE_KEY = 'sk_live_sample_default_000000000000000000';
const CALL_TIMEOUT_MS = 120_000;
const FORMATS = [
  { name: 'import', loader: 'load.mjs' },
  { name: 'require', loader: 'load.cjs' },
];

const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;
const failures = [];

function report(runtime, what, outcome) {
  const line = `${runtime.name.padEnd(12)} ${what.padEnd(42)}`;
  if (outcome.error === undefined) {
    console.log(`pass  ${line} ${outcome.timing}`);
    return;
  }
  // The thrown error's own line where there is one, not the source line Node prints above it.
  const headline = /^\w*Error\b.*$/m.exec(outcome.error)?.[0] ?? outcome.error.split('\n')[0];
  console.log(`FAIL  ${line} ${headline}`);
  failures.push(`${runtime.name}, ${what}:\n${outcome.error}`);
}

/** Runs `args` on `runtime` in `cwd`; the error text on failure. */
function runOn(runtime, args, cwd, env) {
  try {
    const out = execFileSync(runtime.bin, args, {
      cwd,
      env: onPath(runtime, env),
      timeout: CALL_TIMEOUT_MS,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return { out: out.toString() };
  } catch (error) {
    return { error: (error.stderr?.toString() || error.message).trim() };
  }
}

/** Runs `check` once on this Node.js and reports it with the time it took. */
async function once(what, check) {
  const runtime = { name: `node ${process.versions.node}` };
  const started = performance.now();
  try {
    await check();
    report(runtime, what, { timing: seconds(performance.now() - started) });
  } catch (error) {
    report(runtime, what, { error: error.message });
  }
}

const work = mkdtempSync(join(tmpdir(), 'service-sdk-install-'));
try {
  const packed = packAll(work);
  for (const runtime of nodeRuntimes(packed)) {
    const projects = new Map();
    for (const name of runtime.packages) {
      const dir = join(work, runtime.name.replace(/\W+/g, '-'), name.replace(/\W+/g, '-'));
      try {
        projects.set(name, { dir, installMs: install(packed, name, dir, runtime) });
      } catch (error) {
        report(runtime, `${name} (npm install)`, {
          error: error.stderr?.toString() || error.message,
        });
      }
    }
    const core = projects.get('@service/lookup-core');
    let server;
    try {
      server = core && (await serve(runtime, core.dir, { events: SAMPLE_EVENTS, key: SAMPLE_KEY }));
    } catch (error) {
      report(runtime, 'service-lookup serve', { error: error.message });
    }
    const env = {
      ...process.env,
      LOOKUP_BASE_URL: server?.baseUrl ?? 'http://127.0.0.1:1',
      SERVICE_SECRET_KEY: SAMPLE_KEY,
      SAMPLE_EVENTS,
    };
    try {
      for (const [name, { dir, installMs }] of projects) {
        for (const format of FORMATS) {
          const ran = runOn(runtime, [format.loader, name], dir, env);
          const firstAnswer = ran.out && JSON.parse(ran.out).firstAnswer;
          report(runtime, `${name} (${format.name})`, {
            error: ran.error,
            timing: `install ${seconds(installMs)} + first call ${seconds(firstAnswer)}`,
          });
        }
      }
      const crm = projects.get('@service/crm-sync');
      if (crm) {
        const { version } = packed.get('@service/crm-sync').manifest;
        const bin = join(crm.dir, 'node_modules', '.bin', 'service-crm');
        const started = performance.now();
        const ran = runOn(runtime, [bin, '--version'], crm.dir, env);
        const printed = ran.out?.trim();
        report(runtime, 'service-crm --version', {
          error:
            ran.error ?? (printed === version ? undefined : `printed ${printed}, not ${version}`),
          timing: `install ${seconds(crm.installMs)} + first call ${seconds(performance.now() - started)}`,
        });
      }
    } finally {
      server?.stop();
    }
  }
  // Once, on this Node.js: an integrator's vitest file syncing into the emulator, and the
  // "five minutes, no org" guide run as written.
  const current = nodeRuntimes(packed)[0];
  await once('scratch project: vitest sync into the emulator', () =>
    scratchSync(packed, join(work, 'scratch-sync'), current),
  );
  await once('no-org guide, as written', () =>
    noOrgGuide(packed, join(work, 'no-org-guide'), current),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

if (failures.length > 0) {
  console.error(`\ncheck-install: ${failures.length} failed\n\n${failures.join('\n\n')}`);
  process.exitCode = 1;
}
