import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'salesforce-emulator', include: ['test/**/*.test.ts'] },
});
