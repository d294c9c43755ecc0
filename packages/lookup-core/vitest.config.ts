import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'lookup-core', include: ['test/**/*.test.ts'] },
});
