// The answer cache on the embedded store, beside a second embedded store fed the same events with no cache.
import { describe } from 'vitest';
import { openEmbeddedStore } from '../src/index.js';
import { describeCache } from './support/cache-suite.js';

describe('embedded store', () => {
  describeCache(async () => ({
    cached: await openEmbeddedStore(),
    uncached: await openEmbeddedStore({ cache: { maxBytes: 0 } }),
    shared: false,
  }));
});
