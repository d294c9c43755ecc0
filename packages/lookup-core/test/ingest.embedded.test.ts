// Ingest and the aggregates on the embedded store (PGlite, in memory): one instance per file.
import { describe } from 'vitest';
import { openEmbeddedStore } from '../src/index.js';
import { describeIngest } from './support/ingest-suite.js';

describe('embedded store', () => {
  describeIngest(() => openEmbeddedStore());
});
