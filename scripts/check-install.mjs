// Packs every public package, installs the tarballs into an empty folder outside the
// workspace with npm, and loads each entry point with both `import` and `require`.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const packagesDir = join(root, 'packages');
const work = mkdtempSync(join(tmpdir(), 'service-sdk-install-'));
const run = (cmd, args, cwd) =>
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'] }).toString();

try {
  const packages = readdirSync(packagesDir).map((dir) => {
    const manifest = JSON.parse(readFileSync(join(packagesDir, dir, 'package.json'), 'utf8'));
    const out = run('pnpm', ['pack', '--pack-destination', work, '--json'], join(packagesDir, dir));
    const { filename } = JSON.parse(out);
    // Optional peers (msw for lookup-client's ./testing) are installed as an app using them would;
    // a workspace peer (crm-sync's @service/lookup-core) is installed from its own tarball.
    const peers = Object.entries(manifest.peerDependencies ?? {})
      .filter(([, range]) => !range.startsWith('workspace:'))
      .map(([n, r]) => `${n}@${r}`);
    return {
      name: manifest.name,
      exports: Object.keys(manifest.exports),
      tarball: filename,
      peers,
    };
  });

  const app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), '{"name":"app","private":true}');
  run(
    'npm',
    [
      'install',
      '--no-audit',
      '--no-fund',
      '--silent',
      ...packages.flatMap((p) => [p.tarball, ...p.peers]),
    ],
    app,
  );

  for (const pkg of packages) {
    for (const entry of pkg.exports.filter((e) => !e.endsWith('.json'))) {
      const specifier = entry === '.' ? pkg.name : `${pkg.name}/${entry.slice(2)}`;
      const esm = `import(${JSON.stringify(specifier)}).then((m) => { if (!Object.keys(m).length) process.exit(1); })`;
      const cjs = `if (!Object.keys(require(${JSON.stringify(specifier)})).length) process.exit(1)`;
      run('node', ['-e', esm], app);
      run('node', ['-e', cjs], app);
      console.log(`ok  ${specifier}  (import, require)`);
    }
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
