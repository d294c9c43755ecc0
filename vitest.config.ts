import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // Each package's unit tests (`<name>:unit`, `pnpm test:unit`) and, where it has them, its
    // process tests (`<name>:process`: built or spawned commands, servers, browsers); the
    // examples and the docs start servers and builds, so they run with the process tests.
    projects: [
      'packages/*/vitest.config.ts',
      'packages/*/vitest.process.config.ts',
      'examples/*',
      'tools/*',
      'tools/*/vitest.process.config.ts',
      'docs',
    ],
    // The default output, a scan that fails the run when a key or token is logged or in an error,
    // and a count of skipped tests that fails the run when a prerequisite (PostgreSQL, ../shared)
    // was missing, unless ALLOW_MISSING_PREREQUISITES=1 (see CONTRIBUTING.md).
    reporters: ['default', './scripts/secret-scan-reporter.ts', './scripts/skip-reporter.ts'],
  },
});
