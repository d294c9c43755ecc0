/**
 * A throwaway PostgreSQL database (a test file's, a benchmark run's), dropped at the end. Under
 * CI=true an unreachable server fails the run; elsewhere the PostgreSQL tests are skipped with the
 * reason (`requires(database.missing)`), which the skip reporter counts and fails the run on unless
 * ALLOW_MISSING_PREREQUISITES=1.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export const DATABASE_URL =
  process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface TestDatabase {
  /** When `missing` is set: the unreachable server's, for suites to parse while being skipped. */
  url: string;
  drop(): Promise<void>;
  /** Why there is no database (no server): the tests that need one are skipped with it. */
  missing?: string;
}

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * Creates a randomly named database on the server of DATABASE_URL, or says why it cannot (no
 * server). `prefix` starts its name, so a left-over database says who made it.
 */
export async function createTestDatabase(prefix = 'lookup_core_test'): Promise<TestDatabase> {
  const admin = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 3_000 });
  try {
    await admin.connect();
  } catch (error) {
    const reason = `PostgreSQL unreachable at ${DATABASE_URL}: ${(error as Error).message}`;
    if (process.env.CI === 'true')
      throw new Error(`${reason} (CI=true: PostgreSQL tests must run)`);
    return { url: DATABASE_URL, drop: async () => {}, missing: reason };
  }
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
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
