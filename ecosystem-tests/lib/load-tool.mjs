// Loads a pinned tool (esbuild, miniflare, edge-runtime, playwright-core) from its cached install,
// so the projects under test hold nothing but the packed package.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tool } from './tools.mjs';

export async function loadTool(name) {
  const resolve = createRequire(join(tool(name).prefix, 'package.json')).resolve;
  return import(pathToFileURL(resolve(name)).href);
}

/** Bundles `entry` (resolving the package from the project it sits in) into one ES module or script. */
export async function bundle(entry, { format, platform, conditions = [] }) {
  const esbuild = await loadTool('esbuild');
  const built = await esbuild.build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    format,
    platform,
    conditions,
    mainFields: ['module', 'main'],
    target: 'es2022',
    logLevel: 'silent',
  });
  return built.outputFiles[0].text;
}
