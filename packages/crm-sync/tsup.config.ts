import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', salesforce: 'src/salesforce.ts', cli: 'src/cli.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node22',
  // The Node.js version check is a workspace module, built into the command's entry.
  noExternal: ['@service/node-version'],
});
