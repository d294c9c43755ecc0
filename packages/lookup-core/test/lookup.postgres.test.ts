// The lookup behaviour on a PostgreSQL server, in a database of its own.
import { createTestDatabase, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../src/index.js';
import { describeLookup } from './support/lookup-suite.js';

const database = await createTestDatabase();

describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeLookup(() => openPostgresStore({ connectionString: database.url }));

  it('the answer helpers inline into the lookup statement: no SQL-function call per timestamp', async () => {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const plan = await client.query<{ 'QUERY PLAN': string }>(
        'EXPLAIN (VERBOSE) SELECT svc_iso(now()), svc_intent(2)',
      );
      const output = plan.rows.map((row) => row['QUERY PLAN']).join('\n');
      expect(output).toContain('to_char');
      expect(output).not.toMatch(/svc_iso|svc_intent/);
    } finally {
      await client.end();
    }
  });
});
