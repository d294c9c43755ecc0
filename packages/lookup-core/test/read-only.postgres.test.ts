/**
 * A server that takes no writes, on the shared PostgreSQL: a database whose transactions are
 * read-only (`default_transaction_read_only`), as a hot standby's are. The store opens without DDL,
 * checks the schema the primary wrote, and refuses ingest with the reason. (The cluster tests do
 * the same on a real standby.)
 */
import { createTestDatabase, DATABASE_URL, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore, SchemaVersionError, StoreReadOnlyError } from '../src/index.js';
import { session } from './support/events.js';

const database = await createTestDatabase();
const name = new URL(database.url).pathname.slice(1);
afterAll(() => database.drop());

async function admin(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: DATABASE_URL });
  await client.connect();
  await client.query(sql);
  await client.end();
}

describe('a read-only server', requires(database.missing), () => {
  it('opens without migrating, answers, refuses ingest, and says when the schema is behind', async () => {
    const writer = await openPostgresStore({ connectionString: database.url });
    await writer.ingest([
      session('ro-1', '2025-05-01T10:00:00Z', { company: { domain: 'ro.io' } }),
    ]);
    await writer.close();
    await admin(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);

    const reader = await openPostgresStore({ connectionString: database.url, cache: {} });
    try {
      expect(
        (await reader.lookup({ workspace: 'default', domain: 'ro.io' }))?.company,
      ).toMatchObject({ service_sessions: 1 });
      const refused = reader.ingest([session('ro-2', '2025-05-01T11:00:00Z')]);
      await expect(refused).rejects.toThrow(
        new StoreReadOnlyError('the server is read-only (transaction_read_only is on)'),
      );
      await expect(refused).rejects.toThrow(
        'cannot ingest: the server is read-only (transaction_read_only is on); ingest on the primary',
      );
    } finally {
      await reader.close();
    }

    // The primary one migration behind this version: the read-only store does not migrate it.
    await admin(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    const [{ latest }] = (
      await client.query<{ latest: number }>(
        'SELECT max(version) AS latest FROM service_lookup_migrations',
      )
    ).rows as [{ latest: number }];
    await client.query('DELETE FROM service_lookup_migrations WHERE version = $1', [latest]);
    await client.end();
    await admin(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
    await expect(openPostgresStore({ connectionString: database.url })).rejects.toThrow(
      new SchemaVersionError(
        `the server is read-only and its primary's schema is at version ${latest - 1}, this version needs ${latest}: open the store on the primary with this version first, which migrates it`,
      ),
    );
  }, 60_000);
});
