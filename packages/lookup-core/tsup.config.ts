import { defineConfig } from 'tsup';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    node: 'src/node.ts',
    cli: 'src/cli.ts',
    bin: 'src/bin.ts',
    // Loaded by path as a worker thread (validate-off-thread.ts), so built beside the others.
    'validate-worker': 'src/validate-worker.ts',
  },
  shims: true,
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
});
