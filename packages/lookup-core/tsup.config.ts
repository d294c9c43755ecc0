import { defineConfig } from 'tsup';

const CONTRACT = '@service/lookup-contract';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    node: 'src/node.ts',
    cli: 'src/cli.ts',
    bin: 'src/bin.ts',
    // Loaded by path as a worker thread (validate-off-thread.ts), so built beside the others.
    'validate-worker': 'src/validate-worker.ts',
  },
  // The lookup's contract is a private workspace package, never published: its code and its
  // types are built into this package's own files.
  noExternal: [CONTRACT],
  shims: true,
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { paths: { [CONTRACT]: ['../lookup-contract/src/index.ts'] } } },
  clean: true,
  sourcemap: true,
  target: 'node22',
});
