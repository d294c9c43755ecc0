import { createServer } from 'node:net';

/**
 * A loopback port free right now: for servers that cannot be told to pick one (`next start`), or
 * as an address where nothing listens.
 */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return address.port;
}
