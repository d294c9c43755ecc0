import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    node: 'src/node.ts',
    cli: 'src/cli/cli.ts',
    bin: 'src/cli/bin.ts',
    // Loaded by path as a worker thread (ingest/validate-off-thread.ts), so built beside the others.
    'validate-worker': 'src/ingest/validate-worker.ts',
  },
  shims: true,
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
  // The Node.js version check is a workspace module, built into the command's entry.
  noExternal: ['@service/node-version'],
});
