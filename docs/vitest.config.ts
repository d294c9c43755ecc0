import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'docs',
    include: ['test/**/*.test.ts'],
    // Building the reference converts three packages (about a minute on a loaded 2-core machine)
    // and the code-block checks start a real server: these limits guard against hangs, not speed.
    hookTimeout: 300_000,
    testTimeout: 120_000,
  },
});
