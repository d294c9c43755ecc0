import { build } from 'esbuild';
const r = await build({ entryPoints: ['dist/index.js'], bundle: true, minify: true, format: 'esm', platform: 'neutral', mainFields: ['module','main'], write: false, metafile: true, logLevel: 'silent' });
const out = Object.values(r.metafile.outputs)[0];
for (const [f, v] of Object.entries(out.inputs).sort((a,b)=>b[1].bytesInOutput-a[1].bytesInOutput)) if (f.includes('zod')) console.log(v.bytesInOutput, f.replace(/.*zod@[^/]+\/node_modules\/zod\//,''));
