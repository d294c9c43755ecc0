// A key accepted on a connection is remembered for it (connection-keys.ts): the next requests on
// that keep-alive connection answer as the configured keys say, whichever key each one presents;
// your own resolver is still asked on every request.
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sameKey } from '../src/http/connection-keys.js';
import {
  createLookupHandler,
  type KeyResolver,
  type LookupQuery,
  type LookupStore,
} from '../src/index.js';
import { KEY, KEY_ROTATED, KEYS, OTHER_KEY } from './support/events.js';
import { listen, postOn } from './support/transport.js';

/** Answers every lookup with the workspace it was asked in. */
const workspaceStore = {
  lookup: async (query: LookupQuery) => ({ workspace: query.workspace }),
} as unknown as LookupStore;

type Server = Awaited<ReturnType<typeof listen>>;

/** One lookup on `agent`'s connection: its status, the workspace answered, and whether the socket was reused. */
async function lookupOn(server: Server, agent: Agent, key: string) {
  const { status, text, reused } = await postOn(server.port, agent, key, '{"domain":"acme.com"}');
  return { status, ...(status === 200 ? (JSON.parse(text) as { workspace: string }) : {}), reused };
}

describe('sameKey', () => {
  it('is true only for the same text', () => {
    expect(sameKey(KEY, `${KEY}`)).toBe(true);
    expect(sameKey(KEY, `${KEY.slice(0, -1)}m`)).toBe(false);
    expect(sameKey(KEY.slice(0, -1), KEY)).toBe(false);
    expect(sameKey(KEY, KEY.slice(0, -1))).toBe(false);
    expect(sameKey('', KEY)).toBe(false);
    expect(sameKey(`${KEY}\u0000`, KEY)).toBe(false);
  });
});

describe('keys on one keep-alive connection', () => {
  let server: Server;
  beforeAll(async () => {
    server = await listen(createLookupHandler({ store: workspaceStore, keys: KEYS }));
  });
  afterAll(() => server?.close());

  it('answers each request as its own key says, whatever the connection accepted before', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const almost = `${KEY.slice(0, -1)}m`;
    const answers = [];
    for (const key of [KEY, KEY, almost, KEY, OTHER_KEY, KEY_ROTATED, `${KEY}x`, KEY])
      answers.push(await lookupOn(server, agent, key));
    agent.destroy();
    expect(answers.map(({ status, workspace }) => [status, workspace])).toEqual([
      [200, 'default'],
      [200, 'default'],
      [401, undefined],
      [200, 'default'],
      [200, 'other'],
      [200, 'default'],
      [401, undefined],
      [200, 'default'],
    ]);
    expect(answers.slice(1).every((answer) => answer.reused)).toBe(true);
  });
});

describe('your own KeyResolver on one keep-alive connection', () => {
  it('is asked on every request, so it can revoke a key between two of them', async () => {
    let revoked = false;
    const asked: string[] = [];
    const keys: KeyResolver = {
      resolve: (key) => {
        asked.push(key);
        return key === KEY && !revoked ? 'default' : null;
      },
    };
    const server = await listen(createLookupHandler({ store: workspaceStore, keys }));
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const first = await lookupOn(server, agent, KEY);
      const second = await lookupOn(server, agent, KEY);
      revoked = true;
      const third = await lookupOn(server, agent, KEY);
      expect([first.status, second.status, third.status]).toEqual([200, 200, 401]);
      expect(third.reused).toBe(true);
      expect(asked).toEqual([KEY, KEY, KEY]);
    } finally {
      agent.destroy();
      await server.close();
    }
  });
});
