// The answer cache on PostgreSQL, beside a second store on the same database with no cache.

import { createTestDatabase, requires } from '@service/test-support';
import { afterAll, describe } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { describeCache } from './support/cache-suite.js';
import { describeLookup } from './support/lookup-suite.js';

const database = await createTestDatabase();
/** The behaviour table reads data of its own. */
const tableDatabase = await createTestDatabase();

describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(async () => {
    await database.drop();
    await tableDatabase.drop();
  });
  describeCache(async () => ({
    cached: await openPostgresStore({ connectionString: database.url, cache: {} }),
    uncached: await openPostgresStore({ connectionString: database.url }),
    shared: true,
  }));
  // Every row of the lookup's behaviour table, answered through the cache.
  describe('the lookup table, with the cache on', () => {
    describeLookup(() => openPostgresStore({ connectionString: tableDatabase.url, cache: {} }));
  });
});
