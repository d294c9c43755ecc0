// The runtime matrix: packs lookup-client and lookup-core once, starts `service-lookup serve` on
// loopback with the sample events, and runs one small project per runtime, each holding the
// installed tarball and the same checks (client/check.mjs); lookup-core's handler is served by
// Bun.serve and Deno.serve over the embedded store and PostgreSQL and must answer as node:http does.
// Writes results.json and, when every row passed, the "Runtimes" table of the root README.
// Runtimes come from the npm registry (lib/tools.mjs); one that cannot be installed fails the run.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { install, packAll } from '../scripts/install-check/projects.mjs';
import { nodeRuntimes } from '../scripts/install-check/runtimes.mjs';
import { serve } from '../scripts/install-check/serve.mjs';
import { runInChromium } from './lib/chromium.mjs';
import { compareAnswers } from './lib/conformance.mjs';
import { runInEdgeRuntime } from './lib/edge-runtime.mjs';
import { startFront } from './lib/fronts.mjs';
import { throwawayDatabase } from './lib/postgres.mjs';
import { run, runOrThrow, startServer } from './lib/processes.mjs';
import { README, writeRuntimesTable } from './lib/readme.mjs';
import { PINNED, tool, toolBin } from './lib/tools.mjs';
import { runInWorkerd } from './lib/workerd.mjs';

const here = fileURLToPath(new URL('.', import.meta.url));
const SAMPLE_EVENTS = fileURLToPath(new URL('../samples/events.ndjson', import.meta.url));
const SAMPLE_KEY = 'sk_live_sample_default_000000000000000000';
const CLIENT = '@service/lookup-client';
const CORE = '@service/lookup-core';
const CLIENT_CHECKS = 'lookup, typed 404, typed 401, retry after 503, timeout';
const RESULTS = join(here, 'results.json');

const work = mkdtempSync(join(tmpdir(), 'service-sdk-runtimes-'));
const rows = [];
const cleanups = [];
const seconds = (ms) => (ms == null ? 'cached' : `${(ms / 1000).toFixed(2)} s`);

/** Runs one row of the table and records it, whatever happens. */
async function row(fields, body) {
  const started = performance.now();
  const record = { ...fields, installMs: null, projectInstallMs: null, runMs: null, results: [] };
  try {
    Object.assign(record, await body(record));
  } catch (error) {
    record.results.push({ check: 'run', ok: false, detail: error.stack ?? String(error) });
  }
  record.runMs ??= performance.now() - started;
  record.ok = record.results.length > 0 && record.results.every((result) => result.ok);
  rows.push(record);
  const name = `${record.package} ${record.runtime} ${record.variant ?? ''}`.padEnd(52);
  console.log(
    `${record.ok ? 'pass' : 'FAIL'}  ${name} ${record.version ?? ''}  runtime install ${seconds(record.installMs)}, project install ${seconds(record.projectInstallMs)}, run ${seconds(record.runMs)}`,
  );
  for (const result of record.results.filter((r) => !r.ok))
    console.log(`      ${result.check}: ${result.detail}`);
}

/** A project holding the installed `name` (npm, run by `node`) and the client entries. */
function npmProject(folder, name, node) {
  const dir = join(work, folder);
  const projectInstallMs = install(packed, name, dir, node);
  cpSync(join(here, name === CLIENT ? 'client' : 'core'), dir, { recursive: true });
  return { dir, projectInstallMs };
}

/**
 * A row whose checks a library on this Node.js drives (miniflare, edge-runtime, playwright-core),
 * in a project of its own; `drive(dir, record)` resolves with the results.
 */
function drivenRow(fields, driver, drive) {
  return row(fields, async (record) => {
    const { installMs } = tool(driver);
    const project = npmProject(driver, CLIENT, currentNode);
    const started = performance.now();
    const results = await drive(project.dir, record);
    return {
      installMs,
      projectInstallMs: project.projectInstallMs,
      runMs: performance.now() - started,
      results,
    };
  });
}

/** The results a command-line entry printed as its last line, or its failure. */
function printedResults(ran) {
  const last = ran.stdout.trim().split('\n').at(-1) ?? '';
  if (last.startsWith('[')) return JSON.parse(last);
  return [
    { check: 'run', ok: false, detail: `exited ${ran.code}: ${(ran.stderr || ran.stdout).trim()}` },
  ];
}

const packed = packAll(work);
const [currentNode, ...olderNodes] = nodeRuntimes(packed).filter((n) =>
  n.packages.includes(CLIENT),
);
const core = npmProject('lookup-core', CORE, currentNode);
const server = await serve(currentNode, core.dir, { events: SAMPLE_EVENTS, key: SAMPLE_KEY });
cleanups.push(() => server.stop());
const flaky = await startFront({ target: server.baseUrl, fault: '503-once' });
const stall = await startFront({ fault: 'stall' });
const corsFront = await startFront({ target: server.baseUrl, cors: true });
const corsFlaky = await startFront({ target: server.baseUrl, fault: '503-once', cors: true });
const corsStall = await startFront({ fault: 'stall', cors: true });
cleanups.push(
  ...[flaky, stall, corsFront, corsFlaky, corsStall].map((front) => () => front.close()),
);
const servers = (rowId) => ({
  baseUrl: server.baseUrl,
  flakyUrl: `${flaky.url}/${rowId}`,
  stallUrl: stall.url,
  key: SAMPLE_KEY,
});
const hostOf = (url) => new URL(url).host;
const clientHosts = [server.baseUrl, flaky.url, stall.url].map(hostOf);

try {
  for (const node of [currentNode, ...olderNodes]) {
    const version = node.name.replace(/^node /, '');
    const project = npmProject(`node-${version}`, CLIENT, node);
    for (const [variant, entry] of [
      ['ES module', 'node.mjs'],
      ['CommonJS', 'node.cjs'],
    ]) {
      await row(
        {
          package: CLIENT,
          runtime: 'Node.js',
          variant,
          version,
          tested: CLIENT_CHECKS,
          flags: 'none',
        },
        async () => {
          const ran = await run(
            node.bin,
            [entry, JSON.stringify(servers(`node-${version}-${entry}`))],
            { cwd: project.dir },
          );
          return {
            projectInstallMs: project.projectInstallMs,
            runMs: ran.ms,
            results: printedResults(ran),
          };
        },
      );
    }
  }

  for (const resolution of ['node16', 'bundler']) {
    await row(
      {
        package: CLIENT,
        runtime: 'TypeScript',
        variant: `moduleResolution ${resolution}`,
        version: PINNED.typescript,
        tested: `tsc (strict, checkJs), then on Node.js ${process.versions.node}: ${CLIENT_CHECKS}`,
        flags: 'none',
      },
      async () => {
        const { prefix, installMs } = tool('typescript');
        const project = npmProject(`typescript-${resolution}`, CLIENT, currentNode);
        writeFileSync(join(project.dir, 'tsconfig.json'), JSON.stringify(tsconfig(resolution)));
        const tsc = join(prefix, 'node_modules', 'typescript', 'bin', 'tsc');
        await runOrThrow(currentNode.bin, [tsc, '-p', 'tsconfig.json'], { cwd: project.dir });
        const ran = await run(
          currentNode.bin,
          ['dist/main.mjs', JSON.stringify(servers(`ts-${resolution}`))],
          { cwd: project.dir },
        );
        return {
          installMs,
          projectInstallMs: project.projectInstallMs,
          runMs: ran.ms,
          results: printedResults(ran),
        };
      },
    );
  }

  const bunInstall = tool('bun');
  const bun = toolBin('bun');
  const bunVersion = (await runOrThrow(bun, ['--version'])).stdout.trim();
  const bunProject = join(work, 'bun');
  cpSync(join(here, 'client'), bunProject, { recursive: true });
  writeFileSync(join(bunProject, 'package.json'), '{"name":"app","private":true}\n');
  const bunAdd = await runOrThrow(bun, ['add', packed.get(CLIENT).tarball], { cwd: bunProject });
  for (const [variant, entry] of [
    ['ES module', 'node.mjs'],
    ['CommonJS', 'node.cjs'],
  ]) {
    await row(
      {
        package: CLIENT,
        runtime: 'Bun',
        variant,
        version: bunVersion,
        tested: `bun add, then ${CLIENT_CHECKS}`,
        flags: 'none',
      },
      async () => {
        const ran = await run(bun, [entry, JSON.stringify(servers(`bun-${entry}`))], {
          cwd: bunProject,
        });
        return {
          installMs: bunInstall.installMs,
          projectInstallMs: bunAdd.ms,
          runMs: ran.ms,
          results: printedResults(ran),
        };
      },
    );
  }

  const denoInstall = tool('deno');
  const deno = toolBin('deno');
  const denoVersion = /deno (\S+)/.exec((await runOrThrow(deno, ['--version'])).stdout)[1];
  const denoEnv = { ...process.env, DENO_NO_UPDATE_CHECK: '1' };
  await row(
    {
      package: CLIENT,
      runtime: 'Deno',
      variant: 'ES module',
      version: denoVersion,
      tested: CLIENT_CHECKS,
      flags: '`--allow-net=<host:port of each server called>`',
    },
    async () => {
      const project = npmProject('deno', CLIENT, currentNode);
      const flags = [`--allow-net=${clientHosts.join(',')}`];
      const ran = await run(deno, ['run', ...flags, 'node.mjs', JSON.stringify(servers('deno'))], {
        cwd: project.dir,
        env: denoEnv,
      });
      return {
        installMs: denoInstall.installMs,
        projectInstallMs: project.projectInstallMs,
        runMs: ran.ms,
        results: printedResults(ran),
      };
    },
  );

  const edges = [
    ['workerd (miniflare)', workerdVersion, 'no `nodejs_compat`', 'miniflare', runInWorkerd],
    ['edge-runtime', () => PINNED['edge-runtime'], 'none', 'edge-runtime', runInEdgeRuntime],
  ];
  // The version is read once the row has installed the driver, so that its install is timed.
  for (const [runtime, versionOf, flags, driver, runIn] of edges) {
    const fields = {
      package: CLIENT,
      runtime,
      variant: 'bundled by esbuild',
      tested: CLIENT_CHECKS,
      flags,
    };
    await drivenRow(fields, driver, (dir, record) => {
      record.version = versionOf();
      return runIn(dir, servers(driver));
    });
  }

  await drivenRow(
    {
      package: CLIENT,
      runtime: 'Chromium (headless)',
      variant: 'bundled by esbuild',
      tested: `secret key refused; with \`dangerouslyAllowBrowser\`, blocked by a server without CORS headers, and through one with them: ${CLIENT_CHECKS}`,
      flags: '`dangerouslyAllowBrowser: true`; the server sends CORS headers',
    },
    'playwright-core',
    async (dir, record) => {
      const { results, version } = await runInChromium(dir, {
        withoutCors: { baseUrl: server.baseUrl, key: SAMPLE_KEY },
        withCors: {
          baseUrl: corsFront.url,
          flakyUrl: `${corsFlaky.url}/chromium`,
          stallUrl: corsStall.url,
          key: SAMPLE_KEY,
        },
      });
      record.version = version;
      return results;
    },
  );

  const events = readFileSync(SAMPLE_EVENTS, 'utf8');
  const coreRuntimes = [
    {
      runtime: 'Bun.serve',
      version: bunVersion,
      installMs: bunInstall.installMs,
      flags: () => [],
      command: (flags, args) => [bun, [...flags, 'serve.mjs', ...args]],
    },
    {
      runtime: 'Deno.serve',
      version: denoVersion,
      installMs: denoInstall.installMs,
      flags: denoServeFlags,
      command: (flags, args) => [deno, ['run', ...flags, 'serve.mjs', ...args]],
    },
  ];
  for (const coreRuntime of coreRuntimes) {
    for (const store of ['embedded', 'PostgreSQL']) {
      const flags = coreRuntime.flags(store);
      await row(
        {
          package: CORE,
          runtime: coreRuntime.runtime,
          variant: `${store} store`,
          version: coreRuntime.version,
          tested: 'the conformance requests, answered as node:http answers them',
          flags: flags.length ? flags.map((f) => `\`${f}\``).join(' ') : 'none',
        },
        async () => {
          const database = store === 'PostgreSQL' ? await throwawayDatabase(core.dir) : undefined;
          const [bin, args] = coreRuntime.command(flags, [
            SAMPLE_KEY,
            ...(database ? [database.url] : []),
          ]);
          const started = performance.now();
          let listening;
          try {
            listening = await startServer(bin, args, {
              cwd: core.dir,
              env: denoEnv,
              input: events,
            });
            const results = await compareAnswers(listening.url, server.baseUrl, SAMPLE_KEY);
            return {
              installMs: coreRuntime.installMs,
              projectInstallMs: core.projectInstallMs,
              runMs: performance.now() - started,
              results,
            };
          } finally {
            listening?.stop();
            await database?.drop();
          }
        },
      );
    }
  }
} finally {
  for (const cleanup of cleanups) cleanup();
  rmSync(work, { recursive: true, force: true });
}

function tsconfig(resolution) {
  return {
    compilerOptions: {
      strict: true,
      allowJs: true,
      checkJs: true,
      target: 'es2022',
      lib: ['es2023', 'dom'],
      module: resolution === 'node16' ? 'node16' : 'esnext',
      moduleResolution: resolution,
      outDir: 'dist',
      skipLibCheck: false,
    },
    files: ['main.mts'],
  };
}

/**
 * The least Deno needs to serve lookup-core: listen on loopback, and for PGlite read its own files
 * (the wasm and data beside it), for pg read the PG* variables it looks up for connection defaults.
 */
function denoServeFlags(store) {
  return store === 'embedded'
    ? ['--allow-net=127.0.0.1', '--allow-read=node_modules/@electric-sql/pglite/dist']
    : ['--allow-net=127.0.0.1', '--allow-env=PG*'];
}

function workerdVersion() {
  const manifest = join(tool('miniflare').prefix, 'node_modules', 'workerd', 'package.json');
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

writeFileSync(RESULTS, `${JSON.stringify(rows, null, 2)}\n`);
const failed = rows.filter((r) => !r.ok);
if (failed.length > 0) {
  console.error(
    `\nruntimes: ${failed.length} of ${rows.length} rows failed; ${README} left as it was`,
  );
  process.exitCode = 1;
} else {
  writeRuntimesTable(rows);
  console.log(
    `\nruntimes: ${rows.length} rows passed; results.json and the Runtimes table of README.md written`,
  );
  // The READMEs' runtime claims against the table just written.
  execFileSync(process.execPath, ['--test', join(here, 'readme.test.mjs')], { stdio: 'inherit' });
}
