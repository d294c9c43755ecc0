/**
 * NDJSON lines read at the byte level, for `store.ingest`: lines end at `\n` only (a trailing `\r`
 * is dropped; U+2028, U+2029 and a bare `\r` are ordinary characters inside a line), each line is
 * strict UTF-8, and a line longer than the limit is never held whole in memory. One item is
 * yielded per line, blank lines included, so `ingest` numbers lines as an editor does.
 */
import { isUtf8 } from 'node:buffer';
import { createReadStream } from 'node:fs';
import { UnreadableLine } from '../model/unreadable-line.js';

/** The default longest line, in bytes without its line ending: 1 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;
const BOM = [0xef, 0xbb, 0xbf];

/** Options of `readNdjson`. */
export interface NdjsonOptions {
  /** The longest line accepted, in bytes without `\n` or a trailing `\r` (default 1 MiB). */
  maxLineBytes?: number;
}

/** Pulls chunks from a byte source, keeping the unread rest of the current one. */
class Bytes {
  private chunk: Uint8Array = new Uint8Array(0);
  private at = 0;
  private readonly source: AsyncIterator<Uint8Array>;
  /** Whether an oversized line is still being read through `restOfLine`. */
  lineOpen = false;

  constructor(source: AsyncIterable<Uint8Array>) {
    this.source = source[Symbol.asyncIterator]();
  }

  /** The unread bytes of the current chunk, reading the next one when it is used up; null at the end. */
  async available(): Promise<Uint8Array | null> {
    while (this.at >= this.chunk.length) {
      const next = await this.source.next();
      if (next.done) return null;
      this.chunk = next.value;
      this.at = 0;
    }
    return this.chunk.subarray(this.at);
  }

  consume(n: number): void {
    this.at += n;
  }

  /**
   * The remaining pieces of the open line, its `\n` consumed and not yielded. Each piece is
   * consumed before it is yielded, so a reader that stops early leaves the position consistent.
   */
  async *restOfLine(): AsyncIterable<Uint8Array> {
    while (this.lineOpen) {
      const bytes = await this.available();
      const newline = bytes?.indexOf(NEWLINE) ?? -1;
      if (bytes === null || newline !== -1) this.lineOpen = false;
      if (bytes === null) return;
      const piece = bytes.subarray(0, newline === -1 ? bytes.length : newline);
      this.consume(newline === -1 ? bytes.length : newline + 1);
      if (piece.length > 0) yield piece;
    }
  }
}

const concat = (parts: Uint8Array[], size: number): Uint8Array =>
  parts.length === 1 ? (parts[0] as Uint8Array) : Buffer.concat(parts, size);

async function* once(...pieces: Uint8Array[]): AsyncIterable<Uint8Array> {
  yield* pieces;
}

/**
 * The lines of NDJSON bytes (a file path, or any byte source such as a stream): each a string, or
 * an `UnreadableLine` for a line that is not UTF-8 or is longer than `maxLineBytes`.
 */
export async function* readNdjson(
  input: string | AsyncIterable<Uint8Array>,
  options: NdjsonOptions = {},
): AsyncIterable<string | UnreadableLine> {
  const max = options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
  const bytes = new Bytes(
    typeof input === 'string' ? createReadStream(input, { highWaterMark: 256 * 1024 }) : input,
  );
  let first = true;
  for (;;) {
    let chunk = await bytes.available();
    if (chunk === null) return;
    if (first && BOM.every((b, i) => chunk?.[i] === b)) {
      // A byte order mark opens the file, not its first line.
      bytes.consume(BOM.length);
      chunk = await bytes.available();
      if (chunk === null) return;
    }
    first = false;
    // Collect the line, keeping at most max + 1 bytes (room for a trailing \r).
    const parts: Uint8Array[] = [];
    let size = 0;
    let ended = false;
    while (chunk !== null) {
      const newline = chunk.indexOf(NEWLINE);
      const piece = chunk.subarray(0, newline === -1 ? chunk.length : newline);
      if (size + piece.length > max + 1) break;
      parts.push(piece);
      size += piece.length;
      bytes.consume(newline === -1 ? chunk.length : newline + 1);
      if (newline !== -1) {
        ended = true;
        break;
      }
      chunk = await bytes.available();
    }
    const oversized = !ended && chunk !== null;
    if (oversized) {
      const held = parts.splice(0);
      bytes.lineOpen = true;
      yield new UnreadableLine(`line longer than ${max} bytes`, () => longLine(held, bytes));
      // Whatever the consumer did not read of the line is skipped.
      for await (const _ of bytes.restOfLine());
      continue;
    }
    let line = concat(parts, size);
    if (line[line.length - 1] === CARRIAGE_RETURN) line = line.subarray(0, line.length - 1);
    if (line.length > max) {
      yield new UnreadableLine(`line longer than ${max} bytes`, () => once(line));
    } else if (!isUtf8(line)) {
      const copy = Uint8Array.from(line);
      yield new UnreadableLine('not valid UTF-8', () => once(copy));
    } else {
      yield Buffer.from(line.buffer, line.byteOffset, line.length).toString('utf8');
    }
  }
}

/** An oversized line: the pieces already held, then the rest as it is read. */
async function* longLine(held: Uint8Array[], bytes: Bytes): AsyncIterable<Uint8Array> {
  yield* held;
  yield* bytes.restOfLine();
}
