// The byte-level NDJSON reader: where lines end, strict UTF-8, and the longest line.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readNdjson } from '../src/ingest/ndjson.js';
import { UnreadableLine } from '../src/model/unreadable-line.js';

const utf8 = (s: string) => new TextEncoder().encode(s);

async function* chunks(...parts: Uint8Array[]) {
  yield* parts;
}

type Read = string | { reason: string; raw: number[] };

async function readAll(source: AsyncIterable<Uint8Array>, maxLineBytes?: number): Promise<Read[]> {
  const out: Read[] = [];
  for await (const item of readNdjson(source, maxLineBytes === undefined ? {} : { maxLineBytes })) {
    if (item instanceof UnreadableLine) {
      const raw: number[] = [];
      for await (const piece of item.bytes()) raw.push(...piece);
      out.push({ reason: item.reason, raw });
    } else out.push(item);
  }
  return out;
}

describe('readNdjson', () => {
  it('ends lines at \\n only: U+2028, U+2029 and a bare \\r stay inside the line', async () => {
    const text = '{"a":"x\u2028y"}\n{"b":"\u2029"}\r\nx\ry\n\n{"c":1}';
    expect(await readAll(chunks(utf8(text)))).toEqual([
      '{"a":"x\u2028y"}',
      '{"b":"\u2029"}',
      'x\ry',
      '',
      '{"c":1}',
    ]);
  });

  it('gives a line of invalid UTF-8 back as unreadable with its bytes as read', async () => {
    const bad = [0x7b, 0x22, 0xc3, 0x28, 0x22, 0x7d]; // {"\xC3("}
    const surrogate = [0xed, 0xa0, 0x80]; // U+D800 encoded: not UTF-8
    const lines = await readAll(
      chunks(Uint8Array.from([...bad, 0x0a, ...surrogate, 0x0a]), utf8('ok\n')),
    );
    expect(lines).toEqual([
      { reason: 'not valid UTF-8', raw: bad },
      { reason: 'not valid UTF-8', raw: surrogate },
      'ok',
    ]);
  });

  it('refuses a line longer than the limit; a trailing \\r does not count', async () => {
    const lines = await readAll(chunks(utf8('abcd\r\nabcde\nabc\n')), 4);
    expect(lines).toEqual([
      'abcd',
      { reason: 'line longer than 4 bytes', raw: [...utf8('abcde')] },
      'abc',
    ]);
  });

  it('skips a long line without reading it whole, and streams it to whoever asks', async () => {
    const piece = new Uint8Array(64 * 1024).fill(0x61);
    let produced = 0;
    let producedAtRejection = -1;
    async function* huge() {
      yield utf8('{"first":1}\n');
      for (let i = 0; i < 1024; i++) {
        produced++;
        yield piece; // 64 MiB in all, one line
      }
      yield utf8('\n{"last":1}\n');
    }
    const out: unknown[] = [];
    for await (const item of readNdjson(huge(), { maxLineBytes: 100_000 })) {
      if (item instanceof UnreadableLine) {
        producedAtRejection = produced;
        let total = 0;
        for await (const p of item.bytes()) total += p.length;
        out.push(total);
      } else out.push(item);
    }
    expect(out).toEqual(['{"first":1}', 64 * 1024 * 1024, '{"last":1}']);
    // Rejected after two 64 KiB chunks (100,001 bytes), not after the whole line.
    expect(producedAtRejection).toBe(2);
  });

  it('skips the rest of a long line nobody reads, or reads only in part', async () => {
    const long = utf8(`${'x'.repeat(50)}\nnext\n${'y'.repeat(50)}\nlast`);
    const seen: string[] = [];
    let first = true;
    for await (const item of readNdjson(chunks(long.subarray(0, 7), long.subarray(7)), {
      maxLineBytes: 10,
    })) {
      if (item instanceof UnreadableLine) {
        if (first) for await (const _ of item.bytes()) break;
        first = false;
        seen.push('unreadable');
      } else seen.push(item);
    }
    expect(seen).toEqual(['unreadable', 'next', 'unreadable', 'last']);
  });

  it('drops a byte order mark at the start of the file only', async () => {
    expect(await readAll(chunks(utf8('\uFEFFa\n\uFEFFb')))).toEqual(['a', '\uFEFFb']);
  });

  it('reads the same lines however the bytes are split into chunks', async () => {
    const line = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 12 }).map(utf8),
      fc.uint8Array({ maxLength: 12 }),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(line, { maxLength: 12 }),
        fc.array(fc.nat(200), { maxLength: 8 }),
        async (lines, cuts) => {
          const bytes = Uint8Array.from(lines.flatMap((l) => [...l, 0x0a]));
          const whole = await readAll(chunks(bytes), 8);
          const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
          const pieces = [0, ...at].map((from, i) => bytes.subarray(from, at[i] ?? bytes.length));
          expect(await readAll(chunks(...pieces), 8)).toEqual(whole);
          // One item per line, as an editor counts them.
          expect(whole).toHaveLength(bytes.filter((b) => b === 0x0a).length);
        },
      ),
      { seed: 2028, numRuns: 300 },
    );
  });
});
