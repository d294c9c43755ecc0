/**
 * A bounded number of open connections: idle sockets beyond the bound cannot take the process's
 * file descriptors and lock normal clients out. Real `serve` processes on loopback.
 */
import { connect, type Socket } from 'node:net';
import { describe, expect, it, vi } from 'vitest';
import { KEY } from './support/events.js';
import { lookup, serve } from './support/serve.js';

/** `count` connections that send nothing, each open once connected (or failed to). */
async function idleSockets(origin: string, count: number): Promise<Socket[]> {
  const { hostname, port } = new URL(origin);
  const sockets: Socket[] = [];
  for (let i = 0; i < count; i++) {
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    sockets.push(socket);
    await new Promise<void>((resolve) => {
      socket.once('connect', () => resolve());
      socket.once('close', () => resolve());
    });
  }
  return sockets;
}

/**
 * A request whose headers arrive but whose declared body never does: busy until its timeout.
 * It asks `Expect: 100-continue`, so the server's `100 Continue` says it has read the headers
 * and counts the request (node answers it just before emitting `request`; RFC 9110 section 10.1.1,
 * https://www.rfc-editor.org/rfc/rfc9110#section-10.1.1).
 */
async function busySocket(origin: string): Promise<Socket> {
  const [socket] = await idleSockets(origin, 1);
  const continued = new Promise<void>((resolve) => {
    let text = '';
    const read = (data: Buffer) => {
      text += data;
      if (!text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')) return;
      socket?.off('data', read);
      resolve();
    };
    socket?.on('data', read);
  });
  socket?.write(
    `POST /api/service/lookup HTTP/1.1\r\nhost: x\r\nauthorization: Bearer ${KEY}\r\ncontent-type: application/json\r\ncontent-length: 100\r\nexpect: 100-continue\r\n\r\n`,
  );
  await continued;
  socket?.write('{');
  return socket as Socket;
}

/** Everything a socket receives until it closes. */
const received = (socket: Socket) =>
  new Promise<string>((resolve) => {
    let text = '';
    socket.on('data', (d) => (text += d));
    socket.on('close', () => resolve(text));
  });

describe('connection cap', () => {
  it('with an open-file limit of 128, 300 idle sockets leave a normal request answering', async () => {
    // No --max-connections: the default follows the open-file limit (128 - 64 = 64 connections).
    const served = await serve(['--key', KEY], {}, { openFiles: 128 });
    const sockets = await idleSockets(served.origin, 300);
    try {
      const response = await lookup(served.origin, KEY, { domain: 'acme.com' });
      expect(response.status).toBe(404); // answered by the (empty) store, not refused
      // The idle ones were shed oldest first: the newest are still open.
      expect(sockets.at(-1)?.destroyed).toBe(false);
    } finally {
      for (const socket of sockets) socket.destroy();
      await served.stop();
    }
    expect(served.stderr()).not.toMatch(/EMFILE/);
  }, 60_000);

  it('past the cap, with every connection busy, a new one gets 503 with Retry-After: 1', async () => {
    const served = await serve(['--key', KEY, '--max-connections', '3', '--body-timeout', '30']);
    const busy = [
      await busySocket(served.origin),
      await busySocket(served.origin),
      await busySocket(served.origin),
    ];
    try {
      const [refused] = await idleSockets(served.origin, 1);
      const answer = await received(refused as Socket);
      expect(answer).toMatch(/^HTTP\/1\.1 503 Service Unavailable\r\n/);
      expect(answer).toContain('\r\nretry-after: 1\r\n');
      expect(answer.endsWith('\r\n\r\n{"error":"Service unavailable"}')).toBe(true);
      for (const socket of busy) expect(socket.destroyed).toBe(false);
    } finally {
      for (const socket of busy) socket.destroy();
    }
    // Their places freed (once the server has seen them close), a normal request answers again.
    await vi.waitFor(
      async () =>
        expect((await lookup(served.origin, KEY, { domain: 'acme.com' })).status).toBe(404),
      { timeout: 10_000, interval: 50 },
    );
    await served.stop();
  }, 60_000);

  it('refuses a --max-connections that is not a whole number above 0', async () => {
    await expect(serve(['--key', KEY, '--max-connections', '0'])).rejects.toThrow(
      '--max-connections must be a whole number above 0, got "0"',
    );
  }, 30_000);
});
