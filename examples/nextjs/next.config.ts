import type { NextConfig } from 'next';

const config: NextConfig = {
  // PGlite loads its WebAssembly and data files from its own package folder at run time, so it
  // must stay a plain Node require instead of being bundled into the route.
  serverExternalPackages: ['@electric-sql/pglite', 'pg'],
};

export default config;
