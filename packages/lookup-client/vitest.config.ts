import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'lookup-client', include: ['test/**/*.test.ts'] },
});
