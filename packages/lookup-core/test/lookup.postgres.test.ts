// The lookup behaviour on a PostgreSQL server, in a database of its own.

import { createTestDatabase, requires } from '@service/test-support';
import { afterAll, describe } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { describeLookup } from './support/lookup-suite.js';

const database = await createTestDatabase();

describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeLookup(() => openPostgresStore({ connectionString: database.url }));
});
