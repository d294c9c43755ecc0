// The lookup behaviour on the embedded store (PGlite, in memory): one instance per file.
import { describe } from 'vitest';
import { openEmbeddedStore } from '../src/index.js';
import { describeLookup } from './support/lookup-suite.js';

describe('embedded store', () => {
  describeLookup(() => openEmbeddedStore());
});
