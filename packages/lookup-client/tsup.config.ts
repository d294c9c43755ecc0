import { readFileSync, writeFileSync } from 'node:fs';
import { defineConfig, type Options } from 'tsup';

const { version } = JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8'));

const CONTRACT = '@service/lookup-contract';

const shared: Options = {
  entry: ['src/index.ts', 'src/testing.ts', 'src/openapi.ts'],
  // The lookup's contract is a private workspace package, never published: its code and its
  // types are built into this package's own files.
  noExternal: [CONTRACT],
  dts: { compilerOptions: { paths: { [CONTRACT]: ['../lookup-contract/src/index.ts'] } } },
  sourcemap: true,
  target: 'node22',
  // The version is baked in so the client never reads package.json at run time.
  define: { __LOOKUP_CLIENT_VERSION__: JSON.stringify(version) },
};

export default defineConfig([
  {
    ...shared,
    format: 'esm',
    // The two builds run side by side: this one clears dist but leaves the CommonJS files.
    clean: ['!**/*.cjs', '!**/*.cjs.map'],
    // The OpenAPI document is generated from the built schemas, so it cannot drift from them. It
    // is written beside package.json so that `@service/lookup-client/openapi.json` also resolves
    // under node10 resolution, which knows no `exports`.
    async onSuccess() {
      const built = new URL('./dist/openapi.js', import.meta.url).href;
      const { openApiDocument } = await import(/* @vite-ignore */ built);
      writeFileSync(
        new URL('./openapi.json', import.meta.url),
        `${JSON.stringify(openApiDocument(), null, 2)}\n`,
      );
    },
  },
  {
    ...shared,
    format: 'cjs',
    // ky is an ES module only. Required from CommonJS, esbuild's interop for a "type": "module"
    // package hands over ky's whole namespace as its default export, so `ky(...)` is not a
    // function. The CommonJS build carries its own copy of ky instead of requiring it.
    noExternal: [CONTRACT, 'ky'],
    // ky's license asks that its notice travel with its code.
    banner: {
      js: '/*! The CommonJS build of @service/lookup-client includes ky where it calls it (https://github.com/sindresorhus/ky): MIT License, Copyright (c) Sindre Sorhus <sindresorhus@gmail.com> (https://sindresorhus.com) */',
    },
  },
]);
