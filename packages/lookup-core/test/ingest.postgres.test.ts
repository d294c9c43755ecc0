// Ingest and the aggregates on a PostgreSQL server, in a database of its own.
import { afterAll, describe } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { describeIngest } from './support/ingest-suite.js';
import { createTestDatabase, requires } from './support/postgres.js';

const database = await createTestDatabase();

describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeIngest(() => openPostgresStore({ connectionString: database.url }));
});
