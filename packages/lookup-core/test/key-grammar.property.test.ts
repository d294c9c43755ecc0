/**
 * One key grammar for everyone who reads a key (docs/lookup-core/http-api.md, "The key"): for
 * every generated key the server (its handler, answering a request that presents the key), the
 * client (at construction) and the client's test double (answering the same request) give the same
 * verdict. A key they accept also comes back whole from the keys file's `KEY[=WORKSPACE]` syntax
 * (its `=` padding never taken for the separator) and never shows in the server's log.
 */
import { ConfigurationError, LookupClient } from '@service/lookup-client';
import { lookupHandlers } from '@service/lookup-client/testing';
import { parseKeySpec } from '@service/lookup-contract';
import fc from 'fast-check';
import { getResponse } from 'msw';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFailure } from '../src/http/log.js';
import { createLookupHandler, type LookupStore, openEmbeddedStore } from '../src/index.js';

const ORIGIN = 'http://lookup.test';
const RUNS = 10_000;

/** What RFC 6750's token68 allows, and characters around it that a key must not hold. */
const TOKEN68 = [...'abzAZ09', '-', '.', '_', '~', '+', '/'];
const OUTSIDE = ['=', '!', ',', ' ', '%', '"', ';', ':', '\t', '\n', 'é', '€', '\\', '*'];

const tail = fc.oneof(
  fc.array(
    fc.oneof(
      { weight: 12, arbitrary: fc.constantFrom(...TOKEN68) },
      { weight: 1, arbitrary: fc.constantFrom(...OUTSIDE) },
    ),
    { maxLength: 40 },
  ),
  // Around the longest key (512 characters, 504 after the prefix).
  fc.integer({ min: 498, max: 508 }).map((length) => Array.from({ length }, () => 'k')),
);
const generatedKey = fc
  .tuple(
    fc.constantFrom('sk_live_', 'sk_live_', 'sk_live_', 'sk_live_', 'sk_test_', 'SK_LIVE_', ''),
    tail,
    fc.constantFrom('', '', '=', '==', '==='),
  )
  .map(([prefix, characters, padding]) => `${prefix}${characters.join('')}${padding}`);

let store: LookupStore;
beforeAll(async () => {
  store = await openEmbeddedStore();
});
afterAll(() => store?.close());

/** The request the server and the double judge: the key in the body, and as Bearer when it fits. */
function presenting(key: string, inHeader: boolean): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (inHeader) headers.authorization = `Bearer ${key}`;
  return new Request(`${ORIGIN}/api/service/lookup`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ domain: 'acme.com', ...(inHeader ? {} : { secretKey: key }) }),
  });
}

/** Whether `make` builds without a TypeError and every request presenting the key gets past 401. */
async function admits(
  make: () => (request: Request) => Promise<Response | undefined>,
  key: string,
): Promise<boolean> {
  let answer: (request: Request) => Promise<Response | undefined>;
  try {
    answer = make();
  } catch (error) {
    if (error instanceof TypeError) return false;
    throw error;
  }
  // A header carries visible ASCII only; the body carries any key.
  const ways = /^[\x21-\x7e]+$/.test(key) ? [true, false] : [false];
  const statuses = await Promise.all(
    ways.map(async (inHeader) => (await answer(presenting(key, inHeader)))?.status),
  );
  const past = statuses.map((status) => status !== 401);
  expect(new Set(past).size, `one key, two verdicts by transport: ${statuses}`).toBe(1);
  return past[0] as boolean;
}

const server = (key: string) =>
  admits(() => {
    const handler = createLookupHandler({ store, keys: [{ key, workspace: 'w' }] });
    return (request) => handler(request);
  }, key);

const double = (key: string) =>
  admits(() => {
    const handlers = lookupHandlers({
      baseUrl: ORIGIN,
      workspaces: [{ secretKeys: [key], companies: [] }],
    });
    return (request) => getResponse(handlers, request);
  }, key);

function client(key: string): boolean {
  try {
    new LookupClient({ secretKey: key, baseUrl: 'https://lookup.example.com' });
    return true;
  } catch (error) {
    if (error instanceof ConfigurationError) return false;
    throw error;
  }
}

describe('one key grammar', () => {
  it(`server, client and double agree on ${RUNS.toLocaleString('en')} generated keys`, async () => {
    let admitted = 0;
    await fc.assert(
      fc.asyncProperty(generatedKey, async (key) => {
        const verdicts = {
          server: await server(key),
          client: client(key),
          double: await double(key),
        };
        expect(verdicts).toEqual({
          server: verdicts.client,
          client: verdicts.client,
          double: verdicts.client,
        });
        if (!verdicts.client) return;
        admitted++;
        expect(parseKeySpec(key)).toEqual({ key, workspace: 'default' });
        expect(parseKeySpec(`${key}=northwind`)).toEqual({ key, workspace: 'northwind' });
        const logged = describeFailure(new Error(`resolver failed for "${key}"`)).message;
        expect(logged).toBe('resolver failed for "sk_live_[redacted]"');
      }),
      { numRuns: RUNS, seed: 20261129 },
    );
    // The generator reaches both verdicts often, or the agreement would say little.
    expect(admitted).toBeGreaterThan(RUNS / 10);
    expect(admitted).toBeLessThan(RUNS * 0.9);
  }, 300_000);

  it.each([
    [
      'padding with no workspace',
      `sk_live_${'a'.repeat(24)}+/==`,
      `sk_live_${'a'.repeat(24)}+/==`,
      'default',
    ],
    [
      'padding then a workspace',
      `sk_live_${'a'.repeat(24)}+/===acme`,
      `sk_live_${'a'.repeat(24)}+/==`,
      'acme',
    ],
    [
      'a key without padding',
      `sk_live_${'a'.repeat(24)}=acme`,
      `sk_live_${'a'.repeat(24)}`,
      'acme',
    ],
    [
      'spaces around the separator',
      ` sk_live_${'b'.repeat(30)} = north wind `,
      `sk_live_${'b'.repeat(30)}`,
      'north wind',
    ],
  ])('the keys file reads %s', (_what, spec, key, workspace) => {
    expect(parseKeySpec(spec)).toEqual({ key, workspace });
  });
});
