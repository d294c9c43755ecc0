import { defineConfig } from 'tsup';

const CONTRACT = '@service/lookup-contract';

export default defineConfig({
  entry: { index: 'src/index.ts', salesforce: 'src/salesforce.ts', cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  // The lookup's contract and the Node.js version check are private workspace packages, never
  // published: their code (and the contract's types) are built into this package's own files.
  noExternal: [CONTRACT, '@service/node-version'],
  dts: { compilerOptions: { paths: { [CONTRACT]: ['../lookup-contract/src/index.ts'] } } },
  clean: true,
  sourcemap: true,
  target: 'node22',
});
