import { defineProject } from 'vitest/config';
import { processTests } from './vitest.process.config.ts';

/** lookup-core's unit tests: in this process, with an embedded store or a PostgreSQL database. */
export default defineProject({
  test: {
    name: 'lookup-core:unit',
    include: ['test/**/*.test.ts'],
    exclude: processTests,
    // One module graph per worker rather than per file: importing the store, PGlite and the HTTP
    // layer again for each file cost more than many of their tests take. A test that replaces a
    // global restores it (shells.test.ts), and each file opens and closes its own stores.
    isolate: false,
    // Opening an embedded store and ingesting in beforeAll can pass 10 s when every file of the
    // run opens one at once on a busy machine; a hook that times out skips its whole file.
    hookTimeout: 60_000,
    // Worker threads started from the sources (the validation thread) run `.ts` modules that
    // import `./x.js`: the hooks the CLI tests run the command with resolve those to `./x.ts`.
    execArgv: ['--import', new URL('./test/support/source-hooks.mjs', import.meta.url).href],
  },
});
