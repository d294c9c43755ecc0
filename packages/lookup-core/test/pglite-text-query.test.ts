/**
 * `queryText` writes PGlite's Bind message itself (src/pglite-text-query.ts): every parameter must
 * reach PostgreSQL byte for byte, rows come back as text with NULL as null, and a refused
 * statement fails with PGlite's error and leaves the transaction to roll back.
 */
import { PGlite } from '@electric-sql/pglite';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { queryText } from '../src/store/pglite-text-query.js';

const pg = await PGlite.create();
afterAll(() => pg.close());

describe('queryText on PGlite', () => {
  it('sends any text parameters exactly and reads the columns back as text', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.string({ unit: 'grapheme', maxLength: 40 }), { minLength: 1, maxLength: 6 }),
        async (values) => {
          // NUL cannot be stored in a PostgreSQL text value, so no event field holds one.
          const params = values.map((v) => v.replaceAll('\0', ''));
          const columns = params.map(
            (_, i) => `$${i + 1}::text AS c${i}, octet_length($${i + 1}::text) AS n${i}`,
          );
          const [row] = await pg.transaction(() =>
            queryText<Record<string, string | null>>(
              pg,
              `SELECT ${columns.join(', ')}, NULL::int AS absent`,
              params,
            ),
          );
          params.forEach((p, i) => {
            expect(row?.[`c${i}`]).toBe(p);
            expect(row?.[`n${i}`]).toBe(String(new TextEncoder().encode(p).byteLength));
          });
          expect(row?.absent).toBeNull();
        },
      ),
      { numRuns: 200 },
    );
  });

  it('returns every row of a set, and none for a statement without rows', async () => {
    const [created, inserted, rows] = await pg.transaction(async () => [
      await queryText(pg, 'CREATE TEMP TABLE t (k text PRIMARY KEY)', []),
      await queryText(pg, 'INSERT INTO t SELECT unnest($1::text[])', ['{a,"b,c",d}']),
      await queryText<{ k: string }>(pg, 'SELECT k FROM t ORDER BY k', []),
    ]);
    expect(created).toEqual([]);
    expect(inserted).toEqual([]);
    expect(rows).toEqual([{ k: 'a' }, { k: 'b,c' }, { k: 'd' }]);
  });

  it('fails with the SQLSTATE and constraint, and the transaction rolls back', async () => {
    await pg.exec('CREATE TABLE kept (k text PRIMARY KEY)');
    const refused = pg.transaction(async () => {
      await queryText(pg, 'INSERT INTO kept VALUES ($1)', ['one']);
      await queryText(pg, 'INSERT INTO kept VALUES ($1)', ['one']);
    });
    await expect(refused).rejects.toMatchObject({ code: '23505', constraint: 'kept_pkey' });
    expect((await pg.query('SELECT count(*)::int AS n FROM kept')).rows).toEqual([{ n: 0 }]);
    // The connection is usable again after the rollback.
    await pg.transaction(() => queryText(pg, 'INSERT INTO kept VALUES ($1)', ['two']));
    expect((await pg.query('SELECT k FROM kept')).rows).toEqual([{ k: 'two' }]);
  });
});
