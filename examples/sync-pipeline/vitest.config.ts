import { defineProject } from 'vitest/config';

// Starting a real server (and building Next.js) on a machine shared with other work takes a while:
// the limits are generous, and nothing asserts on time.
export default defineProject({
  test: {
    name: 'example-sync-pipeline',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
