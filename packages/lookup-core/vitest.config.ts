import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'lookup-core',
    include: ['test/**/*.test.ts'],
    // Opening PGlite (1-4 s alone) and ingesting fixtures in beforeAll can take several times
    // longer on a busy 2-core machine; a hook is a set-up step, not a timed assertion.
    hookTimeout: 60_000,
  },
});
