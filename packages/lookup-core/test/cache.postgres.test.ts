// The answer cache on PostgreSQL, beside a second store on the same database with no cache.
import { afterAll, describe } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { describeCache } from './support/cache-suite.js';
import { createTestDatabase, requires } from './support/postgres.js';

const database = await createTestDatabase();

describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeCache(async () => ({
    cached: await openPostgresStore({ connectionString: database.url }),
    uncached: await openPostgresStore({ connectionString: database.url, cache: { maxBytes: 0 } }),
    shared: true,
  }));
});
