import { defineProject } from 'vitest/config';

// next build, then starting a real server, on a machine shared with other work takes a while:
// the limits are generous, and nothing asserts on time.
export default defineProject({
  test: {
    name: 'example-nextjs',
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 300_000,
  },
});
