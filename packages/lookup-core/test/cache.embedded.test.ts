// The answer cache on the embedded store, beside a second embedded store fed the same events with no cache.
import { describe } from 'vitest';
import { openEmbeddedStore } from '../src/index.js';
import { describeCache } from './support/cache-suite.js';
import { describeLookup } from './support/lookup-suite.js';

describe('embedded store', () => {
  describeCache(async () => ({
    cached: await openEmbeddedStore({ cache: {} }),
    uncached: await openEmbeddedStore(),
    shared: false,
  }));
  // Every row of the lookup's behaviour table, answered through the cache.
  describe('the lookup table, with the cache on', () => {
    describeLookup(() => openEmbeddedStore({ cache: {} }));
  });
});
