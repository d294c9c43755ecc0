import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'crm-sync', include: ['test/**/*.test.ts'] },
});
