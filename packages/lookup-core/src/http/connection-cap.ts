/**
 * A bound on the connections a `node:http` server holds open. Each one holds a file descriptor; past
 * the process's open-file limit, `accept` fails and every new client is refused, however idle the
 * connections that hold them. At the bound, a new connection first takes the place of the
 * connection idle the longest (no request in progress: a keep-alive client between requests, or
 * one that never sent anything); when every connection is busy it gets `503` with `Retry-After: 1`
 * and is closed.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { errorBody } from './http.js';

export const DEFAULT_MAX_CONNECTIONS = 1_000;
/** Descriptors left for everything else: the store's files or pool, the change feed, logs. */
const OPEN_FILE_HEADROOM = 64;

/**
 * 1,000, or the soft open-file limit less 64 where that is lower (read from /proc on Linux;
 * elsewhere 1,000).
 */
export function defaultMaxConnections(): number {
  let limits: string;
  try {
    limits = readFileSync('/proc/self/limits', 'utf8');
  } catch {
    return DEFAULT_MAX_CONNECTIONS;
  }
  const soft = Number(limits.match(/^Max open files\s+(\d+)/m)?.[1]);
  if (!Number.isSafeInteger(soft)) return DEFAULT_MAX_CONNECTIONS;
  return Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, soft - OPEN_FILE_HEADROOM));
}

const body = errorBody(503);
const UNAVAILABLE = [
  'HTTP/1.1 503 Service Unavailable',
  'content-type: application/json; charset=utf-8',
  'cache-control: no-store',
  'retry-after: 1',
  'connection: close',
  `content-length: ${Buffer.byteLength(body)}`,
  '',
  body,
].join('\r\n');

/** Holds `server` to at most `max` open connections (see above). */
export function capConnections(server: Server, max: number): void {
  /** Open connections, oldest first, each with its requests in progress. */
  const open = new Map<Socket, number>();
  const idleLongest = (): Socket | undefined => {
    for (const [socket, requests] of open) if (requests === 0) return socket;
    return undefined;
  };
  // Before node's own listener: a refused connection is answered and closed here, never parsed.
  server.prependListener('connection', (socket: Socket) => {
    if (open.size >= max) {
      const idle = idleLongest();
      if (idle === undefined) {
        socket.end(UNAVAILABLE);
        socket.destroySoon();
        return;
      }
      open.delete(idle);
      idle.destroy();
    }
    open.set(socket, 0);
    socket.once('close', () => open.delete(socket));
  });
  server.on('request', (request, response) => {
    const socket = request.socket;
    if (!open.has(socket)) return;
    open.set(socket, (open.get(socket) ?? 0) + 1);
    response.once('close', () => {
      const requests = open.get(socket);
      // Re-inserted as the newest: idle since now.
      if (requests === undefined) return;
      open.delete(socket);
      open.set(socket, requests - 1);
    });
  });
}
