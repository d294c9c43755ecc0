import { defineProject } from 'vitest/config';
import { typeTestFiles } from '../../scripts/type-tests.ts';
import { processTests } from './vitest.process.config.ts';

/** crm-sync's unit tests: in this process, against the Salesforce emulator on loopback at most. */
export default defineProject({
  test: {
    name: 'crm-sync:unit',
    include: ['test/**/*.test.ts'],
    exclude: processTests,
    // One module graph per worker rather than per file: the files start their own emulators and
    // change no global, and importing jsforce and the emulator again for each of them would cost
    // more than most of their tests take.
    isolate: false,
    // Starting the emulator in a hook is quick; the margin is for a machine busy with other runs.
    hookTimeout: 30_000,
    // A test makes at most a few hundred calls to the emulator on loopback.
    testTimeout: 10_000,
    // Type assertions (purity.test.ts: no delete step type) are checked by tsc inside the run.
    typecheck: {
      enabled: true,
      include: typeTestFiles(import.meta.dirname).filter((file) => !processTests.includes(file)),
      tsconfig: './tsconfig.json',
    },
  },
});
