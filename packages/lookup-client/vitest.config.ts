import { readFileSync } from 'node:fs';
import { defineProject } from 'vitest/config';
import { typeTestFiles } from '../../scripts/type-tests.js';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

export default defineProject({
  define: { __LOOKUP_CLIENT_VERSION__: JSON.stringify(version) },
  test: {
    name: 'lookup-client:unit',
    include: ['test/**/*.test.ts'],
    // Type assertions (types.test.ts, msw.test.ts) are checked by tsc inside the run.
    typecheck: {
      enabled: true,
      include: typeTestFiles(import.meta.dirname),
      tsconfig: './tsconfig.json',
    },
  },
});
