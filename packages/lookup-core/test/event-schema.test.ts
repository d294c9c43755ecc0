/**
 * The published JSON Schema of one event line (`event.schema.json`) against the validator ingest
 * runs (`parseEvent`), with a real JSON Schema validator: both accept the shipped samples, both
 * refuse malformed lines, and the schema never refuses a line ingest accepts. Where they differ
 * (the schema accepts, ingest refuses), the reason is one the schema's description names.
 */
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEvent } from '../src/model/events.js';
import { linkedin, session } from './support/events.js';
import { mutated } from './support/mutated-events.js';

const read = (path: string) => readFileSync(new URL(path, import.meta.url), 'utf8');
const schema = JSON.parse(read('../event.schema.json'));
// Strict, so a misspelt keyword fails here, but for ajv's wish that `required` sit beside
// `type: "object"`: a nullable object (`["object", "null"]`) and the `then` branches are sound.
const validate = new Ajv2020({ strict: true, strictTypes: false, allErrors: true }).compile(schema);
const OPTIONS = { now: Date.parse('2026-01-01T00:00:00Z') };

const accepts = (line: string) => validate(JSON.parse(line));
const ingests = (line: string) => parseEvent(line, OPTIONS).ok;

/** What ingest checks beyond the schema, as its reasons say it (see the schema's description). */
const BEYOND_SCHEMA = [
  /longer than \d+ bytes/,
  /^(start_time|end_time): (not a calendar date|before 1970|too far in the future)/,
  /^end_time: end_time is before start_time$/,
  /^company\.domain: not a domain$/,
  /^contact\.email: not an email address$/,
  /NUL or an unpaired surrogate/,
];
/** Lengths in UTF-16 code units: the schema counts characters, so only astral ones differ. */
const ASTRAL = /[\u{10000}-\u{10ffff}]/u;

const line = (event: Record<string, unknown>) => JSON.stringify(event);
const at = '2025-03-01T10:00:00.000Z';

describe('event.schema.json', () => {
  it('accepts every line of the shipped samples, as ingest does', () => {
    const lines = read('../samples/events.ndjson')
      .split('\n')
      .filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(10);
    for (const l of lines) {
      expect(ingests(l), l).toBe(true);
      expect(accepts(l), `${l}\n${JSON.stringify(validate.errors)}`).toBe(true);
    }
  });

  it('accepts the example lines of EVENTS.md, as ingest does', () => {
    const examples = [...read('../EVENTS.md').matchAll(/^```json\n(.*)\n```$/gm)].map((m) => m[1]);
    expect(examples).toHaveLength(2);
    for (const l of examples as string[]) {
      expect(ingests(l), l).toBe(true);
      expect(accepts(l), l).toBe(true);
    }
  });

  it('refuses malformed lines, as ingest does', () => {
    const s = (fields: Record<string, unknown>) => line(session('s1', at, fields));
    const l = (fields: Record<string, unknown>) => line(linkedin('l1', at, fields));
    const malformed = [
      '[]',
      '"session"',
      'null',
      '42',
      s({ type: 'visit' }),
      s({ type: undefined }),
      s({ id: '' }),
      s({ id: 'x'.repeat(201) }),
      s({ id: 7 }),
      s({ workspace: null }),
      s({ workspace: '' }),
      s({ company: null }),
      s({ company: undefined }),
      s({ company: { name: 'Acme' } }),
      s({ company: { domain: 42 } }),
      s({ company: { domain: 'acme.com', name: 7 } }),
      s({ contact: { name: 'Ann' } }),
      s({ contact: { email: `${'a'.repeat(320)}@acme.com` } }),
      s({ contact: 'ann@acme.com' }),
      s({ visitor_id: undefined }),
      s({ visitor_id: '' }),
      s({ end_time: undefined }),
      s({ start_time: '2025-03-01' }),
      s({ start_time: '2025-03-01T10:00:00' }),
      s({ start_time: '2025-03-01 10:00:00Z' }),
      s({ start_time: '2025-03-01T24:00:00Z' }),
      s({ start_time: '2025-13-01T10:00:00Z' }),
      s({ start_time: 1740823200000 }),
      s({ active_time: -1 }),
      s({ active_time: 1.5 }),
      s({ active_time: 2 ** 31 }),
      s({ active_time: '5' }),
      s({ pages_visited: '/' }),
      s({ pages_visited: Array(101).fill('/') }),
      s({ pages_visited: ['x'.repeat(1025)] }),
      s({ pages_visited: [1] }),
      s({ signals: null }),
      s({ signals: Array(21).fill('s') }),
      s({ intent: 'urgent' }),
      s({ intent: undefined }),
      s({ referrer: 1 }),
      s({ utm: 'google' }),
      s({ utm: { source: 1 } }),
      s({ city: 'x'.repeat(101) }),
      l({ start_time: undefined }),
      l({ clicks: null }),
      l({ clicks: -1 }),
      l({ likes: 0.5 }),
    ];
    for (const m of malformed) {
      expect(ingests(m), m).toBe(false);
      expect(accepts(m), m).toBe(false);
    }
  });

  it('accepts what only ingest refuses, each for a reason its description names', () => {
    const s = (fields: Record<string, unknown>) => line(session('s1', at, fields));
    const beyond = [
      s({ company: { domain: 'acme.com', name: 'é'.repeat(101) } }),
      s({ pages_visited: Array(9).fill('x'.repeat(1000)) }),
      s({ start_time: '2025-02-31T10:00:00Z' }),
      s({ start_time: '1969-12-31T23:59:59Z', end_time: '1970-01-01T00:05:00Z' }),
      s({ start_time: '2030-01-01T00:00:00Z', end_time: '2030-01-01T00:05:00Z' }),
      s({ end_time: '2025-03-01T09:00:00Z' }),
      s({ company: { domain: 'acme.com:8080' } }),
      s({ contact: { email: 'ann@' } }),
      s({ contact: { email: 'ann@acme.com', name: 'Ann\u0000' } }),
    ];
    for (const b of beyond) {
      const parsed = parseEvent(b, OPTIONS);
      expect(parsed.ok, b).toBe(false);
      if (!parsed.ok)
        expect(
          BEYOND_SCHEMA.some((r) => r.test(parsed.reason)),
          parsed.reason,
        ).toBe(true);
      expect(accepts(b), b).toBe(true);
    }
  });

  it('never refuses a line ingest accepts, and differs only for the reasons it names', () => {
    const seen = { both: 0, neither: 0, beyond: 0 };
    fc.assert(
      fc.property(mutated, (l) => {
        const parsed = parseEvent(l, OPTIONS);
        const valid = accepts(l);
        if (parsed.ok) expect(valid, `${l}\n${JSON.stringify(validate.errors)}`).toBe(true);
        if (parsed.ok || !valid) {
          seen[parsed.ok ? 'both' : 'neither']++;
          return;
        }
        seen.beyond++;
        const named =
          BEYOND_SCHEMA.some((r) => r.test(parsed.reason)) ||
          (/characters/.test(parsed.reason) && ASTRAL.test(l));
        expect(named, `${parsed.reason}: ${l}`).toBe(true);
      }),
      { numRuns: 5_000 },
    );
    expect(seen.both).toBeGreaterThan(100);
    expect(seen.neither).toBeGreaterThan(100);
  });
});
