import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'crm-sync',
    include: ['test/**/*.test.ts'],
    // Set-up hooks build the CLI and open an embedded store; on a busy 2-core machine that can
    // pass the 10 s default. A hook is a set-up step, not a timed assertion.
    hookTimeout: 60_000,
  },
});
