// Release rehearsal: publish the packages to a throwaway local registry (Verdaccio), then install
// each one BY NAME into empty projects, with npm and with pnpm, and make the first call a user
// would make. It catches what the workspace hides: files missing from the tarball, `workspace:`
// ranges, bins without their shebang, dependencies only the monorepo provides. The no-org guide
// (docs/crm-sync/no-org.md) runs as written there too, its `npm install` line included.
// Needs the npm registry (Verdaccio and third-party dependencies) and nothing else.
// Works at whatever version the packages have (0.0.0 before `changeset version`).
// Prints one line per step with its time; exits 1 with the failing step on any failure.
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { readGuide, runGuideToItsEnd } from '../docs/test/no-org-guide.ts';

const root = new URL('..', import.meta.url).pathname;
const cache = join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'service-sdk');
const verdaccioDir = join(cache, 'verdaccio');
const work = mkdtempSync(join(tmpdir(), 'service-release-'));
const children = new Set();
// The emulator is published from tools/ (docs/design/2026-11-29-emulator-package.md).
const PUBLISHED = {
  'lookup-client': 'packages/lookup-client',
  'lookup-core': 'packages/lookup-core',
  'crm-sync': 'packages/crm-sync',
  'salesforce-emulator': 'tools/salesforce-emulator',
};
const version = (name) =>
  JSON.parse(readFileSync(join(root, PUBLISHED[name], 'package.json'), 'utf8')).version;
// A key from the environment when one is set, else the public sample key of the sample events.
const key = process.env.SERVICE_SECRET_KEY || 'sk_live_sample_default_000000000000000000';

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const say = (line) => console.log(`rehearsal: ${line}`);

/** Runs `title`; prints it with its time, or throws naming it. */
async function step(title, run) {
  const start = performance.now();
  try {
    const detail = await run();
    say(`${title} (${seconds(start)})${typeof detail === 'string' ? `: ${detail}` : ''}`);
    return detail;
  } catch (error) {
    throw new Error(`${title} failed after ${seconds(start)}: ${error.message}`);
  }
}

/** Runs a command to completion; the error carries its output, which is otherwise kept quiet. */
function run(command, args, options = {}) {
  try {
    return execFileSync(command, args, { encoding: 'utf8', stdio: 'pipe', ...options });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim().split('\n').slice(-15);
    throw new Error(
      `${command} ${args.join(' ')} exited ${error.status}\n    ${output.join('\n    ')}`,
    );
  }
}

/** Starts a long-running command in its own process group; resolves once `ready` matches its output. */
function start(command, args, options, ready) {
  const child = spawn(command, args, { ...options, detached: true, stdio: 'pipe' });
  children.add(child);
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not ready after 60 s:\n${output}`)), 60_000);
    const read = (chunk) => {
      output += chunk;
      const match = ready.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, output: () => output });
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.on('exit', (code) => reject(new Error(`exited ${code} before it was ready:\n${output}`)));
  });
}

/** Kills a started process and its children (npx and pnpm exec run the bin in a child). */
function stop(child) {
  children.delete(child);
  try {
    process.kill(-child.pid, 'SIGTERM');
  } catch {}
}

function freePort() {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Every child process sees only the rehearsal registry (pnpm run exports npm_config_* itself). */
function registryEnv(registry) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^npm_config_registry$/i.test(name)),
  );
  return { ...env, npm_config_registry: registry };
}

/** POSTs one lookup by email with the key; returns the answer or throws with the status. */
async function lookup(origin) {
  const response = await fetch(`${origin}/api/service/lookup`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ email: 'ann.lee@acme.com' }),
  });
  const body = await response.json();
  if (response.status !== 200)
    throw new Error(`lookup answered ${response.status}: ${JSON.stringify(body)}`);
  return body;
}

async function startVerdaccio() {
  const bin = join(verdaccioDir, 'node_modules/.bin/verdaccio');
  if (!existsSync(bin)) {
    // 6.8.0 with node-fetch 2.7.0 is the pair known to install and run on the Node versions we support.
    mkdirSync(verdaccioDir, { recursive: true });
    writeFileSync(
      join(verdaccioDir, 'package.json'),
      JSON.stringify({
        private: true,
        dependencies: { verdaccio: '6.8.0' },
        overrides: { 'node-fetch': '2.7.0' },
      }),
    );
    run('npm', ['install', '--no-audit', '--no-fund', '--silent'], { cwd: verdaccioDir });
  }
  const upstream = run('npm', ['config', 'get', 'registry'], { cwd: work }).trim();
  const port = await freePort();
  // @service/* is served from this storage only, never from upstream; everything else is proxied.
  writeFileSync(
    join(work, 'verdaccio.yaml'),
    [
      `storage: ${join(work, 'storage')}`,
      `auth: { htpasswd: { file: ${join(work, 'htpasswd')}, max_users: 1 } }`,
      `uplinks: { upstream: { url: '${upstream}', timeout: 60s } }`,
      'packages:',
      "  '@service/*': { access: $all, publish: $authenticated }",
      "  '**': { access: $all, proxy: upstream }",
      'log: { type: stdout, format: pretty, level: info }',
      '',
    ].join('\n'),
  );
  const registry = `http://127.0.0.1:${port}/`;
  const server = await start(
    bin,
    ['--config', join(work, 'verdaccio.yaml'), '--listen', `127.0.0.1:${port}`],
    { cwd: work },
    /http address/,
  );
  // A throwaway user: its token lets `pnpm publish` through and is never written outside `work`.
  const response = await fetch(`${registry}-/user/org.couchdb.user:rehearsal`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'rehearsal', password: 'rehearsal-only' }),
  });
  const { token } = await response.json();
  if (!token) throw new Error(`no token from ${registry} (${response.status})`);
  const npmrc = join(work, '.npmrc');
  writeFileSync(npmrc, `registry=${registry}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  return { server: server.child, registry, npmrc };
}

/** An empty project that installs from the rehearsal registry. */
function project(name, registry) {
  const dir = join(work, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  writeFileSync(join(dir, '.npmrc'), `registry=${registry}\n`);
  return dir;
}

const clientCall = `
import { LookupClient } from '@service/lookup-client';
const client = new LookupClient({ baseUrl: process.argv[2] });
const { company, contacts } = await client.lookup({ email: 'ann.lee@acme.com' });
console.log(company.domain, contacts.length);
`;

/** The first ```ts block under "First lookup" in the installed lookup-core README. */
function firstExample(dir) {
  const readme = readFileSync(join(dir, 'node_modules/@service/lookup-core/README.md'), 'utf8');
  const code = /^## First lookup\n[\s\S]*?^```ts(?: run)?\n([\s\S]*?)^```$/m.exec(readme)?.[1];
  if (!code) throw new Error('the installed README has no ts block under "## First lookup"');
  return code;
}

/** Installs each package by name and makes its first call; `pm` is npm or pnpm. */
async function rehearse(pm, registry) {
  const dir = project(`with-${pm}`, registry);
  const env = registryEnv(registry);
  // Package documents are fetched anew (npm --prefer-online, pnpm a metadata cache of its own): a
  // port used again by a later rehearsal must not serve an earlier run's (same version, other tarball).
  const install = (name) =>
    pm === 'npm'
      ? run('npm', ['install', '--prefer-online', '--no-audit', '--no-fund', name], {
          cwd: dir,
          env,
        })
      : run('pnpm', ['add', '--cache-dir', join(dir, '.pnpm-cache'), name], { cwd: dir, env });
  // npx -p finds the package in the project's node_modules; pnpm runs the project's bins itself.
  const bin = (name, command) =>
    pm === 'npm' ? ['npx', ['--yes', '-p', name, command]] : ['pnpm', ['exec', command]];
  // The server reads its keys, and the client its key, from the environment.
  const options = {
    cwd: dir,
    env: { ...env, SERVICE_SECRET_KEYS: `${key}=default`, SERVICE_SECRET_KEY: key },
  };

  let origin;
  await step(
    `${pm}: @service/lookup-core install to first lookup through service-lookup serve`,
    async () => {
      install('@service/lookup-core');
      const installed = join(dir, 'node_modules/@service/lookup-core');
      for (const file of ['EVENTS.md', 'event.schema.json', 'LICENSE'])
        if (!existsSync(join(installed, file))) throw new Error(`the package has no ${file}`);
      const events = join(dir, 'node_modules/@service/lookup-core/samples/events.ndjson');
      const [command, args] = bin('@service/lookup-core', 'service-lookup');
      const server = await start(
        command,
        [...args, 'serve', '--port', '0', '--events', events],
        options,
        /listening on (\S+)/,
      );
      origin = server.match[1];
      const answer = await lookup(origin);
      return `${answer.company.domain} from ${origin}`;
    },
  );

  await step(`${pm}: @service/lookup-client install to first lookup`, async () => {
    install('@service/lookup-client');
    writeFileSync(join(dir, 'client-call.mjs'), clientCall);
    const printed = run('node', ['client-call.mjs', origin], options).trim();
    if (printed !== 'acme.com 1') throw new Error(`expected "acme.com 1", printed "${printed}"`);
    return printed;
  });

  await step(`${pm}: @service/crm-sync install to service-crm --version`, () => {
    install('@service/crm-sync');
    const [command, args] = bin('@service/crm-sync', 'service-crm');
    const printed = run(command, [...args, '--version'], options).trim();
    if (printed !== version('crm-sync')) throw new Error(`printed "${printed}"`);
    return printed;
  });

  await step(`${pm}: @service/salesforce-emulator install to salesforce-emulator --help`, () => {
    install('@service/salesforce-emulator');
    const [command, args] = bin('@service/salesforce-emulator', 'salesforce-emulator');
    const printed = run(command, [...args, '--help'], options);
    if (!printed.includes('SF_INSTANCE_URL=')) throw new Error(`printed "${printed.slice(0, 80)}"`);
    return 'usage printed';
  });

  await step(`${pm}: lookup-core README first example, as written`, async () => {
    const code = firstExample(dir);
    writeFileSync(join(dir, 'first-example.mjs'), code);
    const printed = run('node', ['first-example.mjs'], { cwd: dir, env });
    // It prints what the README's comments say it prints: the counts, then a 200 for acme.com.
    const promised = /console\.log\(counts\); \/\/ (.*)$/m.exec(code)?.[1];
    const [counts, ...answer] = printed.split('\n');
    if (counts !== promised) throw new Error(`printed ${counts}, the README says ${promised}`);
    const found =
      answer[0] === '200 {' && answer.some((line) => line.includes("domain: 'acme.com'"));
    if (!found)
      throw new Error(
        `printed ${answer.slice(0, 3).join(' ')} after the counts, not a 200 for acme.com`,
      );
    return `printed ${counts}, then 200 with acme.com`;
  });
}

/** The "five minutes, no org" guide in an empty project, its `npm install` line as written. */
async function noOrgGuide(registry) {
  const guide = readGuide();
  const dir = project('no-org-guide', registry);
  // Package documents fetched anew, as in `rehearse`; long enough for npm on a loaded machine.
  const env = { ...registryEnv(registry), npm_config_prefer_online: 'true' };
  await runGuideToItsEnd(guide, dir, guide.install, env, 300_000);
  return 'Service fields on the records, a timeline post on the new Lead';
}

async function main() {
  const began = performance.now();
  say(
    `packages at ${Object.keys(PUBLISHED)
      .map((p) => `${p}@${version(p)}`)
      .join(', ')}; work dir ${work}`,
  );
  const installed = existsSync(join(verdaccioDir, 'node_modules/.bin/verdaccio'));
  const { registry, npmrc } = await step(
    installed ? 'Verdaccio started' : `Verdaccio installed into ${verdaccioDir} and started`,
    () => startVerdaccio(),
  );
  await step('packages built', () => {
    run(
      'pnpm',
      ['--filter', './packages/*', '--filter', './tools/salesforce-emulator', 'run', 'build'],
      { cwd: root },
    );
  });
  await step(`changeset publish to ${registry}`, () => {
    // No git tags: this is a rehearsal. The temp .npmrc carries the registry and the token.
    const env = { ...registryEnv(registry), npm_config_userconfig: npmrc };
    run('pnpm', ['exec', 'changeset', 'publish', '--no-git-tag'], { cwd: root, env });
    for (const name of Object.keys(PUBLISHED)) {
      const published = run('npm', ['view', `@service/${name}`, 'version'], {
        cwd: work,
        env,
      }).trim();
      if (published !== version(name))
        throw new Error(`@service/${name}: registry has "${published}"`);
    }
    return `${Object.keys(PUBLISHED).length} packages`;
  });
  await rehearse('npm', registry);
  await step('npm: the no-org guide, as written', () => noOrgGuide(registry));
  await rehearse('pnpm', registry);
  say(`passed (${seconds(began)})`);
}

function cleanUp() {
  for (const child of children) stop(child);
  rmSync(work, { recursive: true, force: true });
}
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => process.exit(130));
process.once('exit', cleanUp);

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`rehearsal: FAILED: ${error.message}`);
    process.exit(1);
  },
);
