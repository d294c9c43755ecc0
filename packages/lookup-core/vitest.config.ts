import { defineProject } from 'vitest/config';

export default defineProject({
  test: {
    name: 'lookup-core',
    include: ['test/**/*.test.ts'],
    // Opening an embedded store and ingesting in beforeAll can pass 10 s when every file of the
    // run opens one at once on a busy machine; a hook that times out skips its whole file.
    hookTimeout: 60_000,
    // Worker threads started from the sources (the validation thread) run `.ts` modules that
    // import `./x.js`: the hooks the CLI tests run the command with resolve those to `./x.ts`.
    execArgv: ['--import', new URL('./test/support/source-hooks.mjs', import.meta.url).href],
  },
});
