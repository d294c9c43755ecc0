import { defineConfig } from 'tsup';

const CONTRACT = '@service/lookup-contract';

export default defineConfig({
  entry: { index: 'src/index.ts', salesforce: 'src/salesforce.ts', cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  // The lookup's contract is a private workspace package, never published: its code and its
  // types are built into this package's own files.
  noExternal: [CONTRACT],
  dts: { compilerOptions: { paths: { [CONTRACT]: ['../lookup-contract/src/index.ts'] } } },
  clean: true,
  sourcemap: true,
  target: 'node22',
});
