import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'example-smoke-kit', include: ['test/**/*.test.ts'] },
});
