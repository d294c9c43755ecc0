import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
const r = await build({ entryPoints: [process.argv[2] ?? 'src/index.ts'], bundle: true, minify: true, format: 'esm', platform: 'neutral', external: ['ky','zod','zod/*'], define: { __LOOKUP_CLIENT_VERSION__: '"0.1.0"' }, write: false, metafile: true, logLevel: 'silent' });
const out = Object.values(r.metafile.outputs)[0];
for (const [f, v] of Object.entries(out.inputs)) console.log(v.bytesInOutput, f);
console.log('total', r.outputFiles[0].contents.length, gzipSync(r.outputFiles[0].contents).length);
