/**
 * Failing to start says why and what to do: `openPostgresStore` rejects with
 * `StoreUnavailableError` (never the driver's raw error) whose message gives PostgreSQL's reason,
 * and `serve` on a taken port names the port and `--port`.
 */
import { createServer } from 'node:http';
import { close, createTestDatabase, listen, requires } from '@service/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import { openPostgresStore, StoreUnavailableError } from '../src/index.js';
import { runCli } from './support/cli.js';
import { KEY } from './support/events.js';

const database = await createTestDatabase();
afterAll(() => database.drop());

/** The test database's URL with `change` applied. */
const urlWith = (change: (url: URL) => void) => {
  const url = new URL(database.url);
  change(url);
  return url.toString();
};

describe('openPostgresStore refused by the server', requires(database.missing), () => {
  it('a missing database: StoreUnavailableError naming it and createdb', async () => {
    const missing = urlWith((url) => {
      url.pathname = '/lookup_core_test_never_created';
    });
    const error = await openPostgresStore({ connectionString: missing }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toBe(
      'The lookup store is unavailable: database "lookup_core_test_never_created" does not exist (create it first, e.g. with createdb)',
    );
    expect(((error as Error).cause as { code?: string }).code).toBe('3D000');
  });

  it('an unknown role (28000): StoreUnavailableError naming the role, not the raw driver error', async () => {
    const stranger = urlWith((url) => {
      url.username = 'lookup_core_test_no_such_role';
      url.password = '';
    });
    const error = await openPostgresStore({ connectionString: stranger }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(
      /^The lookup store is unavailable: .*"lookup_core_test_no_such_role".*\(check the user and password in the connection string, and pg_hba.conf\)$/,
    );
    expect(((error as Error).cause as { code?: string }).code).toMatch(/^28/);
  });
});

describe('serve on a port already taken', () => {
  it('names the port and --port', async () => {
    const taken = createServer();
    const origin = await listen(taken);
    const port = new URL(origin).port;
    try {
      const result = await runCli(['serve', '--port', port, '--key', KEY]);
      expect(result.code).toBe(1);
      expect(result.stderr).toContain(
        `service-lookup: port ${port} is already in use: stop what listens there, or choose another with --port`,
      );
    } finally {
      await close(taken);
    }
  }, 30_000);
});
