// Links to the org that fail as networks do, on loopback (port 0): a TCP proxy that resets a
// share of the requests passing through it, and a server that takes connections and never answers.
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';

/** A seeded generator in [0, 1) (mulberry32), so a failing run reproduces. */
function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

/** What a resetting proxy did. */
export interface ResetCounts {
  /** Requests passed on, and those reset before the org saw them or after it answered. */
  requests: number;
  resetBeforeOrg: number;
  resetAfterOrg: number;
}

export interface LinkServer {
  readonly url: string;
  close(): Promise<void>;
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return `http://127.0.0.1:${address.port}`;
}

function closer(server: Server, sockets: Set<Socket>) {
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });
}

/**
 * A proxy to `target` that resets the connection (TCP RST) for a share `rate` of the requests:
 * half of them as the request arrives (the org never sees it), half as the org's answer starts
 * (the org applied it; the client never hears). Each request is told apart by the start of an
 * HTTP/1.1 message on its connection.
 */
export async function resettingProxy(
  target: string,
  rate: number,
  seed = 41,
): Promise<LinkServer & { readonly counts: ResetCounts }> {
  const { hostname, port } = new URL(target);
  const random = seeded(seed);
  const counts: ResetCounts = { requests: 0, resetBeforeOrg: 0, resetAfterOrg: 0 };
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = tcpConnect(Number(port), hostname);
    sockets.add(client).add(upstream);
    const reset = () => {
      client.resetAndDestroy();
      upstream.destroy();
    };
    client.on('data', (chunk: Buffer) => {
      if (/^[A-Z]+ \S+ HTTP\/1\.1\r\n/.test(chunk.toString('latin1', 0, 200))) {
        counts.requests += 1;
        if (random() < rate / 2) {
          counts.resetBeforeOrg += 1;
          return reset();
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1', 0, 9) === 'HTTP/1.1 ' && random() < rate / 2) {
        counts.resetAfterOrg += 1;
        return reset();
      }
      client.write(chunk);
    });
    client.on('end', () => upstream.end());
    upstream.on('end', () => client.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
  });
  const url = await listen(server);
  return { url, counts, close: closer(server, sockets) };
}

/** A server that accepts connections and reads requests but never answers. */
export async function stalledServer(): Promise<
  LinkServer & { readonly connections: () => number }
> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on('data', () => {}); // read, never answer
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
  });
  const url = await listen(server);
  return { url, connections: () => connections, close: closer(server, sockets) };
}
