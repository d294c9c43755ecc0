// Ingest and the aggregates on a PostgreSQL server, in a database of its own.

import { createTestDatabase, requires } from '@service/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { CHANGES_CHANNEL, openPostgresStore } from '../src/index.js';
import { decodeChange } from '../src/model/changes.js';
import { session } from './support/events.js';
import { describeIngest } from './support/ingest-suite.js';

const database = await createTestDatabase();

describe('PostgreSQL store', requires(database.missing), () => {
  afterAll(() => database.drop());
  describeIngest(() => openPostgresStore({ connectionString: database.url }));

  it('announces each committed batch on the changes channel to other connections', async () => {
    const listener = new pg.Client({ connectionString: database.url });
    await listener.connect();
    const store = await openPostgresStore({ connectionString: database.url });
    try {
      const payloads: string[] = [];
      listener.on('notification', (n) => {
        if (n.channel === CHANGES_CHANNEL) payloads.push(n.payload ?? '');
      });
      await listener.query(`LISTEN ${CHANGES_CHANNEL}`);
      const committed: unknown[] = [];
      await store.ingest(
        [
          session('l1', '2025-01-01T00:00:00Z', { workspace: 'listen' }),
          session('l2', '2025-01-01T00:00:00Z', {
            workspace: 'listen',
            company: { domain: 'b.io' },
          }),
        ],
        { batchSize: 1, onCommitted: (n) => committed.push(...n) },
      );
      // A round trip on the listening connection delivers notifications sent before it.
      await listener.query('SELECT 1');
      expect(payloads.map(decodeChange)).toEqual([
        { workspace: 'listen', domains: ['acme.com'], emails: [] },
        { workspace: 'listen', domains: ['b.io'], emails: [] },
      ]);
      expect(committed).toEqual(payloads.map(decodeChange));
    } finally {
      await store.close();
      await listener.end();
    }
  });
});
