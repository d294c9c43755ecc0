// Bundles the built ESM entry with its dependencies, minified, for a platform without Node
// built-ins, gzips it and fails when it is over the budget. Run by `check:package` after a build.
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const LIMIT_BYTES = 20 * 1024;

const result = await build({
  entryPoints: [new URL('../dist/index.js', import.meta.url).pathname],
  bundle: true,
  minify: true,
  format: 'esm',
  platform: 'neutral',
  mainFields: ['module', 'main'],
  write: false,
  logLevel: 'silent',
});
const code = result.outputFiles[0].contents;
const gzipped = gzipSync(code).length;
const verdict = gzipped <= LIMIT_BYTES ? 'ok' : 'OVER BUDGET';
console.log(
  `bundle-size: ${code.length} B minified, ${gzipped} B gzipped (limit ${LIMIT_BYTES} B): ${verdict}`,
);
if (gzipped > LIMIT_BYTES) process.exitCode = 1;
