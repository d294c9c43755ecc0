/**
 * The store keeps an intent as its rank (a smallint) and names it in SQL (`svc_intent`, frozen in
 * migration 1, which is never edited). The names must stay the contract's levels, in its order.
 */
import { PGlite } from '@electric-sql/pglite';
import { PURCHASE_INTENTS } from '@service/lookup-contract';
import { afterAll, describe, expect, it } from 'vitest';
import { pgliteDatabase } from '../src/store/embedded.js';
import { migrate } from '../src/store/sql/migrations.js';

const pg = await PGlite.create();
afterAll(() => pg.close());

describe('intent levels in the SQL schema', () => {
  it('names every rank as the contract does, in the same order, and no rank beyond them', async () => {
    await migrate(pgliteDatabase(pg));
    const rows = await pg.query<{ name: string | null }>(
      'SELECT svc_intent(rank) AS name FROM generate_series(0, $1::int) AS rank ORDER BY rank',
      [PURCHASE_INTENTS.length],
    );
    expect(rows.rows.map((row) => row.name)).toEqual([...PURCHASE_INTENTS, null]);
  });
});
