import { defineConfig } from 'tsup';

const CONTRACT = '@service/lookup-contract';

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    node: 'src/node.ts',
    cli: 'src/cli/cli.ts',
    bin: 'src/cli/bin.ts',
    // Loaded by path as a worker thread (ingest/validate-off-thread.ts), so built beside the others.
    'validate-worker': 'src/ingest/validate-worker.ts',
    // Loaded by path as a worker thread (store/disk-watchdog.ts).
    'disk-watchdog-worker': 'src/store/disk-watchdog-worker.ts',
  },
  // The lookup's contract and the Node.js version check are private workspace packages, never
  // published: their code (and the contract's types) are built into this package's own files.
  noExternal: [CONTRACT, '@service/node-version'],
  shims: true,
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { paths: { [CONTRACT]: ['../lookup-contract/src/index.ts'] } } },
  clean: true,
  sourcemap: true,
  target: 'node22',
});
