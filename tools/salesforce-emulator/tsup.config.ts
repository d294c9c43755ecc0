import { defineConfig } from 'tsup';

export default defineConfig([
  {
    entry: { index: 'src/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    // import.meta.url in the CommonJS build (the schema and the login script are found beside it).
    shims: true,
    clean: true,
    sourcemap: true,
    target: 'node22',
  },
  {
    // The command and the `sf` CLI login script tests run as a child process: ES modules only.
    entry: { cli: 'src/cli.ts', 'sf-cli-login': 'src/sf-cli-login.ts' },
    format: ['esm'],
    sourcemap: true,
    target: 'node22',
  },
]);
