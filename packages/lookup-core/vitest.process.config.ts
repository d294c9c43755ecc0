import { defineProject } from 'vitest/config';

/**
 * lookup-core's process and end-to-end tests: they start `service-lookup` (serve, ingest) as child
 * processes, kill them, or build the command (tsup); or they run a whole path end to end on both
 * stores many times over (the property runs over events files and hostile requests, every key in
 * every transport, the query plans after an ingest, the cache under load, the ingest suite's
 * batches of 10,000 rows and more), each taking tens of seconds on a busy machine. `pnpm test` runs them; `pnpm test:unit` leaves them out.
 */
export const processTests = [
  // Faults made by the test itself (kill -9, full tmpfs disks, a second process) and clusters it
  // builds (standbys, failover, PgBouncer).
  'test/*.chaos.test.ts',
  'test/*.cluster.test.ts',
  'test/bin.test.ts',
  'test/cache-cli.test.ts',
  'test/cache-second-pass.test.ts',
  'test/cache-under-load.postgres.test.ts',
  'test/cli.test.ts',
  'test/connection-cap.test.ts',
  'test/events-file.property.test.ts',
  'test/hostile-input.property.test.ts',
  'test/ingest-file-lines.test.ts',
  'test/ingest.embedded.test.ts',
  'test/ingest.postgres.test.ts',
  'test/key-grammar.property.test.ts',
  'test/lost-database.test.ts',
  'test/normalize-lookup.test.ts',
  'test/open-failures.test.ts',
  'test/openapi-route.test.ts',
  'test/operations.postgres.test.ts',
  'test/operations.test.ts',
  'test/plans.test.ts',
  'test/rate-limit.test.ts',
  'test/serve-keys.test.ts',
  'test/serve-operations.test.ts',
  'test/several-servers.postgres.test.ts',
  'test/tenancy-secrets.test.ts',
  'test/wal-checkpoints.test.ts',
];

export default defineProject({
  test: {
    name: 'lookup-core:process',
    include: processTests,
    // Starting a serve process (and PGlite in it) in a hook on a busy machine can pass 10 s.
    hookTimeout: 60_000,
    // A test that starts its own processes gives itself the time it needs (`it(..., 60_000)`);
    // the rest run a few requests against a server already up.
    testTimeout: 30_000,
    // Worker threads started from the sources (the validation thread) run `.ts` modules that
    // import `./x.js`: the hooks the CLI tests run the command with resolve those to `./x.ts`.
    execArgv: ['--import', new URL('./test/support/source-hooks.mjs', import.meta.url).href],
  },
});
