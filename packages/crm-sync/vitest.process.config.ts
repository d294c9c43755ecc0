import { defineProject } from 'vitest/config';

/**
 * crm-sync's process tests: they build the command (tsup) and run it as a child process, drive a
 * browser, run an example, or run `service-crm sync` end to end over an events file (lookup-core's
 * embedded store in the process). `pnpm test` runs them; `pnpm test:unit` leaves them out.
 */
export const processTests = [
  // Faults made by the test itself: killed runs, a link that resets connections, full disks.
  'test/chaos/**/*.test.ts',
  'test/example.test.ts',
  'test/salesforce/bulk-interrupted-sync.test.ts',
  'test/salesforce/cli-bulk-failed.test.ts',
  'test/salesforce/cli-duplicates.test.ts',
  'test/salesforce/cli-env-file.test.ts',
  'test/salesforce/cli-export.test.ts',
  'test/salesforce/cli-help.test.ts',
  'test/salesforce/cli-json.test.ts',
  'test/salesforce/cli-node-version.test.ts',
  'test/salesforce/cli-peer.test.ts',
  'test/salesforce/cli-refresh-refused.test.ts',
  'test/salesforce/cli-secrets.test.ts',
  'test/salesforce/cli.test.ts',
  // Issue 37's customer-org run at 150 companies: the built command, two syncs.
  'test/salesforce/customer-org.test.ts',
  'test/salesforce/e2e.test.ts',
  'test/salesforce/events-file.test.ts',
  'test/salesforce/import-order.test.ts',
  'test/salesforce/interrupted-sync.test.ts',
  'test/salesforce/large-sync.test.ts',
  'test/salesforce/snapshot-format.test.ts',
  'test/salesforce/login-browser.test.ts',
  'test/salesforce/login-callbacks.test.ts',
  'test/salesforce/sync-delta.test.ts',
  'test/salesforce/target-org.test.ts',
];

export default defineProject({
  test: {
    name: 'crm-sync:process',
    include: processTests,
    // Set-up hooks build the CLI and open an embedded store; on a busy 2-core machine that can
    // pass the 10 s default. A hook is a set-up step, not a timed assertion.
    hookTimeout: 60_000,
    // These tests run the CLI as a child process; 5 s is too short when the machine is loaded
    // (seen: cli-help at load 13). The limit guards against hangs, it is no timing assertion.
    testTimeout: 30_000,
  },
});
