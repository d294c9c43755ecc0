import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/*', 'examples/*', 'tools/*', 'docs'],
    // The default output, a scan that fails the run when a key or token is logged or in an error,
    // and a count of skipped tests that fails the run when a prerequisite (PostgreSQL, ../shared)
    // was missing, unless ALLOW_MISSING_PREREQUISITES=1 (see CONTRIBUTING.md).
    reporters: ['default', './scripts/secret-scan-reporter.ts', './scripts/skip-reporter.ts'],
  },
});
