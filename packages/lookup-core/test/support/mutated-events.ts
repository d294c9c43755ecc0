/**
 * Events for property tests: valid ones, and valid ones with one to three fields set to something
 * else (any JSON, values just inside and just past each limit, wrong types, missing keys, unknown
 * keys), as NDJSON lines.
 */
import fc from 'fast-check';
import { EVENT_LIMITS as L } from '../../src/model/limits.js';
import { ann, linkedin, session } from './events.js';

export type Json = Record<string, unknown>;

/** Every key of the schema, nested ones as paths; `.0` is a list's first entry. */
const PATHS = [
  'id',
  'workspace',
  'type',
  'visitor_id',
  'start_time',
  'end_time',
  'active_time',
  'pages_visited',
  'pages_visited.0',
  'signals',
  'signals.0',
  'referrer',
  'utm',
  'utm.source',
  'utm.medium',
  'utm.campaign',
  'intent',
  'city',
  'state',
  'country',
  'impressions',
  'clicks',
  'likes',
  'shares',
  'comments',
  'company',
  'company.domain',
  'company.name',
  'company.industry',
  'contact',
  'contact.email',
  'contact.name',
  'contact.title',
  'unknown',
  'company.unknown',
];

/** Strings of `n` copies of a unit: one JSON byte (`a`), two (`é`), six (`\u0001`) or two (`"`). */
const sized = (limit: number) =>
  fc
    .tuple(fc.constantFrom('a', 'é', '\u0001', '"', '😀'), fc.constantFrom(-1, 0, 1))
    .map(([unit, delta]) => {
      const bytes = JSON.stringify(unit).length - 2;
      return unit.repeat(Math.max(0, Math.floor(limit / bytes) + delta));
    });

const oddValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom(
    null,
    '',
    0,
    -1,
    1.5,
    2 ** 31 - 1,
    2 ** 31,
    'session',
    'linkedin',
    'high',
    'HIGH',
    [],
    {},
    '2025-03-01T10:00:00.000Z',
    '2025-03-01T10:00:00Z',
    '2025-03-01t10:00:00.000z',
    '2025-03-01T10:00:00.000+02:00',
    '2025-03-01T10:00:00.123456Z',
  ),
  ...[
    L.identifier,
    L.email,
    L.profileBytes,
    L.pageBytes,
    L.signalBytes,
    L.referrerBytes,
    L.utmBytes,
    L.geoBytes,
  ].map(sized),
  fc.array(fc.constantFrom('/', 'é'.repeat(L.pageBytes / 2)), { maxLength: L.pages + 1 }),
  fc.array(fc.constant('s'), { minLength: L.signals - 1, maxLength: L.signals + 1 }),
  fc.constant(undefined),
);

/** Sets (or, for `undefined`, deletes) the value at a path, making the objects on the way. */
function setAt(event: Json, path: string, value: unknown): void {
  const keys = path.split('.');
  let at: Json = event;
  for (const key of keys.slice(0, -1)) {
    if (typeof at[key] !== 'object' || at[key] === null)
      at[key] = key === 'pages_visited' ? [] : {};
    at = at[key] as Json;
  }
  const last = keys.at(-1) as string;
  if (value === undefined) delete at[last];
  else at[last] = value;
}

export const valid: fc.Arbitrary<Json> = fc.oneof(
  fc
    .record({
      contact: fc.constantFrom(null, undefined, ann, { email: 'x@y.io' }),
      workspace: fc.constantFrom(undefined, 'w1'),
      utm: fc.constantFrom(undefined, null, { source: 'li', medium: null }),
      signals: fc.constantFrom(undefined, [], ['a', 'a', 'b']),
    })
    .map(({ contact, workspace, utm, signals }) => {
      const event = session('s1', '2025-03-01T10:00:00.000Z', { contact, workspace, utm });
      if (signals === undefined) delete event.signals;
      else event.signals = signals;
      return event;
    }),
  fc
    .constantFrom(undefined, 0, 7)
    .map((clicks) => linkedin('l1', '2025-03-01T10:00:00.000Z', { clicks, workspace: 'w2' })),
);

export const mutated = fc
  .tuple(valid, fc.array(fc.tuple(fc.constantFrom(...PATHS), oddValue), { maxLength: 3 }))
  .map(([event, changes]) => {
    const copy = structuredClone(event);
    for (const [path, value] of changes) setAt(copy, path, value);
    return JSON.stringify(copy);
  });
