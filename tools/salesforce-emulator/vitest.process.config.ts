import { defineProject } from 'vitest/config';

/** The emulator's process tests: they build the package and run its command. */
export const processTests = ['test/cli.test.ts'];

export default defineProject({
  test: { name: 'salesforce-emulator:process', include: processTests, hookTimeout: 120_000 },
});
