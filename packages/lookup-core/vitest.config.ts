import { defineProject } from 'vitest/config';

export default defineProject({
  // Opening an embedded store and ingesting in beforeAll can pass 10 s when every file of the
  // run opens one at once on a busy machine; a hook that times out skips its whole file.
  test: { name: 'lookup-core', include: ['test/**/*.test.ts'], hookTimeout: 60_000 },
});
