import { defineProject } from 'vitest/config';
import { processTests } from './vitest.process.config.ts';

export default defineProject({
  test: {
    name: 'salesforce-emulator:unit',
    include: ['test/**/*.test.ts'],
    exclude: processTests,
    // Metadata envelopes are checked by xmllint, a child process each: on a loaded 2-core machine
    // a test of several upserts can pass the 5 s default. A budget for set-up, not an assertion.
    testTimeout: 30_000,
  },
});
