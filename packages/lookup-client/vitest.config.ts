import { readFileSync } from 'node:fs';
import { defineProject } from 'vitest/config';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

export default defineProject({
  define: { __LOOKUP_CLIENT_VERSION__: JSON.stringify(version) },
  test: { name: 'lookup-client', include: ['test/**/*.test.ts'] },
});
