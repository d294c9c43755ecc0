// One-off: the check-install row for @service/lookup-client only, on this Node and on 22.12.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { install, onPath } from './projects.mjs';
import { serve } from './serve.mjs';
import { nodeRuntimes } from './runtimes.mjs';
const root = new URL('../../packages/', import.meta.url).pathname;
const work = mkdtempSync(join(tmpdir(), 'client-install-'));
const packed = new Map();
for (const dir of ['lookup-client', 'lookup-core']) {
  const manifest = JSON.parse(readFileSync(join(root, dir, 'package.json'), 'utf8'));
  const out = execFileSync('pnpm', ['pack', '--pack-destination', work, '--json'], { cwd: join(root, dir) });
  packed.set(manifest.name, { tarball: JSON.parse(out.toString()).filename, manifest });
}
const KEY = 'sk_live_sample_default_000000000000000000';
try {
  for (const runtime of nodeRuntimes(packed)) {
    const coreDir = join(work, runtime.name.replace(/\W+/g, '-'), 'core');
    const clientDir = join(work, runtime.name.replace(/\W+/g, '-'), 'client');
    install(packed, '@service/lookup-core', coreDir, runtime);
    install(packed, '@service/lookup-client', clientDir, runtime);
    const server = await serve(runtime, coreDir, { events: new URL('../../samples/events.ndjson', import.meta.url).pathname, key: KEY });
    try {
      for (const loader of ['load.mjs', 'load.cjs']) {
        try {
          const out = execFileSync(runtime.bin, [loader, '@service/lookup-client'], { cwd: clientDir, env: onPath(runtime, { ...process.env, LOOKUP_BASE_URL: server.baseUrl, SERVICE_SECRET_KEY: KEY }) });
          console.log(`pass ${runtime.name} ${loader} ${out.toString().trim()}`);
        } catch (error) {
          console.log(`FAIL ${runtime.name} ${loader} ${error.stderr?.toString() || error.message}`);
          process.exitCode = 1;
        }
      }
    } finally { server.stop(); }
  }
} finally { rmSync(work, { recursive: true, force: true }); }
