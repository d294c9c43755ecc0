// A throwaway PostgreSQL database per row, created and dropped through the pg that lookup-core
// installed (no client tools needed). The server: DATABASE_URL's, by default 127.0.0.1:5432.
import { createRequire } from 'node:module';
import { join } from 'node:path';

const SERVER = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export async function throwawayDatabase(coreProject) {
  const pg = createRequire(join(coreProject, 'package.json'))('pg');
  const name = `service_sdk_runtimes_${process.pid}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = async (sql) => {
    const client = new pg.Client({ connectionString: SERVER });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(SERVER);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}
