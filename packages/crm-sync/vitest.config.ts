import { defineProject } from 'vitest/config';
import { typeTestFiles } from '../../scripts/type-tests.ts';

export default defineProject({
  test: {
    name: 'crm-sync',
    include: ['test/**/*.test.ts'],
    // Set-up hooks build the CLI and open an embedded store; on a busy 2-core machine that can
    // pass the 10 s default. A hook is a set-up step, not a timed assertion.
    hookTimeout: 60_000,
    // Most tests run the CLI as a child process; 5 s is too short when the machine is loaded
    // (seen: cli-help at load 13). The limit guards against hangs, it is no timing assertion.
    testTimeout: 30_000,
    // Type assertions (purity.test.ts: no delete step type) are checked by tsc inside the run.
    typecheck: {
      enabled: true,
      include: typeTestFiles(import.meta.dirname),
      tsconfig: './tsconfig.json',
    },
  },
});
