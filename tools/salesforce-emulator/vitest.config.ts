import { defineProject } from 'vitest/config';

export default defineProject({
  test: { name: 'salesforce-emulator:unit', include: ['test/**/*.test.ts'] },
});
