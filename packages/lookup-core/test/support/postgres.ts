/**
 * A fresh PostgreSQL database per test file, dropped at the end. Under CI=true an unreachable
 * server fails the run; elsewhere the PostgreSQL tests skip with the reason printed.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DATABASE_URL =
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  url: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/** Creates a randomly named database, or returns the reason it cannot (no server). */
export async function createTestDatabase(): Promise<TestDatabase | { skip: string }> {
  const admin = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch (error) {
    const reason = `PostgreSQL unreachable at ${DATABASE_URL}: ${(error as Error).message}`;
    if (process.env.CI === 'true')
      throw new Error(`${reason} (CI=true: PostgreSQL tests must run)`);
    console.warn(`skipping PostgreSQL tests: ${reason}`);
    return { skip: reason };
  }
  const name = `lookup_core_test_${randomBytes(6).toString('hex')}`;
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return {
    url: withDatabase(DATABASE_URL, name),
    async drop() {
      const client = new pg.Client({ connectionString: DATABASE_URL });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}
