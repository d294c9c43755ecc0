import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { freePort, runScript, SAMPLE } from '@service/example-smoke-kit';
import { createLookupHandler, type LookupStore, openEmbeddedStore } from '@service/lookup-core';
import { readNdjson, toNodeListener } from '@service/lookup-core/node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const cwd = fileURLToPath(new URL('..', import.meta.url));
const samples = fileURLToPath(new URL('../../../samples/events.ndjson', import.meta.url));

const runClient = (env: Record<string, string>, ...args: string[]) =>
  runScript({ cwd, args: ['src/main.ts', ...args], env });

describe('examples/client-node against a real lookup server on loopback', () => {
  let store: LookupStore;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    store = await openEmbeddedStore();
    await store.ingest(readNdjson(samples));
    const handler = createLookupHandler({ store, keys: [{ key: SAMPLE.secretKey }] });
    server = createServer(toNodeListener(handler));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server?.close(resolve));
    await store?.close();
  });

  it('prints the company and the contact with activity, then each typed error, and exits 0', async () => {
    const { code, stdout, stderr } = await runClient({ SERVICE_LOOKUP_URL: url });
    expect(stderr).toBe('');
    expect(code).toBe(0);
    expect(stdout).toContain('Acme Corp (acme.com), Software');
    expect(stdout).toMatch(/- ann\.lee@acme\.com Ann Lee, CTO: sessions \d+.*latest visit 20/);
    expect(stdout).toContain('400 InvalidInputError');
    expect(stdout).toContain('401 UnauthorizedError');
    expect(stdout).toContain('404 NotFoundError');
  });

  it('looks up a domain given on the command line, listing its contacts', async () => {
    const { code, stdout } = await runClient({ SERVICE_LOOKUP_URL: url }, 'globex.com');
    expect(code).toBe(0);
    expect(stdout).toContain('Globex (globex.com)');
    expect(stdout).toContain('- hank.scorpio@globex.com');
    expect(stdout).toContain('- frank@globex.com');
  });

  it('says how to start a server, and exits 1, when none answers', async () => {
    const closed = await freePort(); // free now: nothing listens there
    const { code, stderr } = await runClient({ SERVICE_LOOKUP_URL: `http://127.0.0.1:${closed}` });
    expect(code).toBe(1);
    expect(stderr).toContain('ConnectionError: no lookup server at');
    expect(stderr).toContain('./dev --filter @service/example-node-http start');
  });
});
