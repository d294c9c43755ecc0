/**
 * The login's callback server on every loopback address `localhost` stands for here (127.0.0.1
 * and ::1 where the machine has them, and whatever else `localhost` resolves to on this
 * machine's loopback), all on one port. The redirect URI names `localhost`, and a browser may try
 * any of its addresses: one left unbound could be taken by another local user, who would then
 * receive the code.
 */
import { lookup } from 'node:dns/promises';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { CliError, EXIT } from './output.js';

export interface LoopbackListener {
  readonly port: number;
  /** The addresses held, e.g. `127.0.0.1`, `::1`. */
  readonly addresses: readonly string[];
  close(): void;
}

/** Errors that mean the machine has no such address: there is nothing to hold there. */
const ABSENT = new Set(['EADDRNOTAVAIL', 'EAFNOSUPPORT']);
/** How many ephemeral ports to try when another program holds one on some address. */
const EPHEMERAL_TRIES = 5;

const isLoopbackAddress = (address: string) => address === '::1' || /^127\./.test(address);

async function localhostAddresses(): Promise<string[]> {
  const resolved = await lookup('localhost', { all: true }).catch(() => []);
  const loopback = resolved.map((a) => a.address).filter(isLoopbackAddress);
  return [...new Set(['127.0.0.1', '::1', ...loopback])];
}

function listen(server: Server, port: number, address: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, address, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Listens on `port` (0: any free one) of every loopback address of `localhost`. */
export async function listenOnLocalhost(
  port: number,
  handler: RequestListener,
): Promise<LoopbackListener> {
  const addresses = await localhostAddresses();
  for (let attempt = 1; ; attempt++) {
    const servers: Server[] = [];
    const held: string[] = [];
    const close = () => {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    };
    let chosen = port;
    try {
      for (const address of addresses) {
        const server = createServer(handler);
        try {
          await listen(server, chosen, address);
        } catch (error) {
          if (ABSENT.has((error as NodeJS.ErrnoException).code ?? '') && held.length > 0) continue;
          throw Object.assign(error as Error, { address });
        }
        servers.push(server);
        held.push(address);
        chosen = (server.address() as AddressInfo).port;
      }
      return { port: chosen, addresses: held, close };
    } catch (error) {
      close();
      const e = error as NodeJS.ErrnoException & { address: string };
      if (port === 0 && e.code === 'EADDRINUSE' && attempt < EPHEMERAL_TRIES) continue;
      const where = e.address.includes(':') ? `[${e.address}]:${chosen}` : `${e.address}:${chosen}`;
      throw new CliError(
        EXIT.usage,
        `Cannot listen on ${where}: ${e.code === 'EADDRINUSE' ? 'another program holds it, and the browser could hand it the login' : e.message}; pick another port with --port`,
      );
    }
  }
}
