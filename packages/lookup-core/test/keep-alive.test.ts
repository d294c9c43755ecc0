// A refused request with a small body it never read (a wrong key in a header) keeps the
// connection alive: the adapter drains the body instead of closing, so keep-alive clients under
// load see no connection resets. Large or refused-for-size bodies still close the connection.
import { Agent } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLookupHandler, type LookupStore } from '../src/index.js';
import { KEY, KEYS } from './support/events.js';
import { listen, postOn } from './support/transport.js';

/** A store that knows nothing: every authorised lookup is a 404. Only the connection matters here. */
const emptyStore = { lookup: async () => null } as unknown as LookupStore;

let server: Awaited<ReturnType<typeof listen>>;
let connections = 0;

beforeAll(async () => {
  server = await listen(createLookupHandler({ store: emptyStore, keys: KEYS }));
  server.server.on('connection', () => connections++);
});
afterAll(() => server?.close());

const post = async (agent: Agent, key: string, body: string) => {
  const { status, connection } = await postOn(server.port, agent, key, body);
  return { status, connection };
};

const WRONG_KEY = 'sk_live_wrong_0123456789abcdefghijk';

describe('connections after a refused request', () => {
  it('a 401 whose small body was never read keeps the connection for the next request', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const before = connections;
    const answers = [];
    for (let i = 0; i < 5; i++) {
      answers.push(await post(agent, WRONG_KEY, '{"domain":"acme.com"}'));
      answers.push(await post(agent, KEY, '{"domain":"acme.com"}'));
    }
    agent.destroy();
    expect(answers.map((a) => a.status)).toEqual([
      401, 404, 401, 404, 401, 404, 401, 404, 401, 404,
    ]);
    expect(answers.every((a) => a.connection !== 'close')).toBe(true);
    expect(connections - before).toBe(1);
  });

  it('a 401 with a large unread body closes the connection instead of draining it', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const answer = await post(agent, WRONG_KEY, `{"pad":"${'x'.repeat(100_000)}"}`);
    agent.destroy();
    expect(answer).toEqual({ status: 401, connection: 'close' });
  });
});
