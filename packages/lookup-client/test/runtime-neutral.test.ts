/**
 * The client must run wherever `fetch` does (Node, Bun, Deno, edge workers): bundling the source
 * for a platform without Node built-ins must succeed and leave nothing to import at run time.
 */
import { build } from 'esbuild';
import { describe, expect, it } from 'vitest';

describe('runtime neutrality', () => {
  it.each(['neutral', 'browser'] as const)(
    'src bundles for platform %s with no imports left',
    async (platform) => {
      const result = await build({
        entryPoints: [new URL('../src/index.ts', import.meta.url).pathname],
        bundle: true,
        write: false,
        format: 'esm',
        platform,
        mainFields: ['module', 'main'],
        define: { __LOOKUP_CLIENT_VERSION__: '"0.0.0-test"' },
        metafile: true,
        logLevel: 'silent',
      });
      const [output] = Object.values(result.metafile.outputs);
      expect(output?.imports).toEqual([]);
      const code = result.outputFiles[0]?.text ?? '';
      expect(code).not.toMatch(/\bnode:|require\(/);
      expect(code).not.toContain('__LOOKUP_CLIENT_VERSION__');
    },
  );
});
