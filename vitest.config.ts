import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*'],
    // The default output, and a scan that fails the run when a key or token is logged or in an error.
    reporters: ['default', './scripts/secret-scan-reporter.ts'],
  },
});
