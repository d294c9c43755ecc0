import { defineProject } from 'vitest/config';

// Starting a real server (and building Next.js) on a machine shared with other work takes a while:
// the limits are generous, and nothing asserts on time.
export default defineProject({
  test: {
    name: 'example-sync-pipeline',
    include: ['test/**/*.test.ts'],
    // The emulator test runs the script three times, each opening PGlite and ingesting the events:
    // about 25-40 s alone, and it outran 60 s once while the other projects ran beside it.
    testTimeout: 180_000,
    hookTimeout: 120_000,
  },
});
