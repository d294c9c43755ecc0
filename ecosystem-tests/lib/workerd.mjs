// The client in workerd, Cloudflare Workers' runtime, through miniflare: the worker bundled as
// wrangler would (esbuild, the `workerd` and `worker` conditions) and run without nodejs_compat.
import { join } from 'node:path';
import { bundle, loadTool } from './load-tool.mjs';
import { PINNED } from './tools.mjs';

export async function runInWorkerd(project, servers) {
  const script = await bundle(join(project, 'worker.mjs'), {
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker', 'browser'],
  });
  const { Miniflare } = await loadTool('miniflare');
  // The compatibility date the pinned workerd ships with (its version's date part), no flags.
  const compatibilityDate = PINNED.miniflare
    .split('.')[1]
    .replace(/(\d{4})(\d{2})(\d{2})/, '$1-$2-$3');
  const mf = new Miniflare({ modules: true, script, compatibilityDate, compatibilityFlags: [] });
  try {
    const response = await mf.dispatchFetch('http://worker/', {
      method: 'POST',
      body: JSON.stringify(servers),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`the worker answered ${response.status}: ${text}`);
    return JSON.parse(text);
  } finally {
    await mf.dispose();
  }
}
