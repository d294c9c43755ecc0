/**
 * Validation's fast path (`plainEvent`, taken for NDJSON lines) against the schema: a line must be
 * answered exactly as zod answers the same value (objects passed to `ingest` always go through
 * zod), for valid events and for events with one to three fields set to something else: any JSON,
 * values just inside and just past each limit, wrong types, missing keys, unknown keys.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseEvent, plainEvent } from '../src/model/events.js';
import { type Json, mutated, valid } from './support/mutated-events.js';

const OPTIONS = { now: Date.parse('2026-01-01T00:00:00Z') };

describe('validation fast path', () => {
  it('answers every NDJSON line exactly as the schema answers the same value', () => {
    /** Lines the fast path took, and lines it left to the schema: both must be met. */
    const taken = { fast: 0, schema: 0 };
    fc.assert(
      fc.property(mutated, (line) => {
        const value = JSON.parse(line) as Json;
        taken[plainEvent(value) === undefined ? 'schema' : 'fast']++;
        expect(parseEvent(line, OPTIONS)).toEqual(parseEvent(value, OPTIONS));
      }),
      { numRuns: 5_000 },
    );
    expect(taken.fast).toBeGreaterThan(100);
    expect(taken.schema).toBeGreaterThan(100);
  });

  it('takes valid events itself, without the schema', () => {
    fc.assert(
      fc.property(valid, (event) => {
        expect(plainEvent(JSON.parse(JSON.stringify(event)) as Json)).toBeDefined();
      }),
    );
  });
});
