import { defineProject } from 'vitest/config';
import { processTests } from './vitest.process.config.ts';

export default defineProject({
  test: { name: 'salesforce-emulator:unit', include: ['test/**/*.test.ts'], exclude: processTests },
});
