import { defineProject } from 'vitest/config';

// Its one test file starts small Node programs as child processes: a process test.
export default defineProject({
  test: { name: 'test-support:process', include: ['test/**/*.test.ts'] },
});
