// The client in Vercel's edge-runtime: the app bundled for the browser platform (no Node.js
// built-ins exist there) and evaluated in the runtime's context.
import { join } from 'node:path';
import { bundle, loadTool } from './load-tool.mjs';

export async function runInEdgeRuntime(project, servers) {
  const initialCode = await bundle(join(project, 'edge.mjs'), {
    format: 'iife',
    platform: 'browser',
    conditions: ['edge-light', 'worker'],
  });
  const { EdgeRuntime } = await loadTool('edge-runtime');
  const runtime = new EdgeRuntime({ initialCode });
  return JSON.parse(await runtime.evaluate(`runChecks(${JSON.stringify(servers)})`));
}
