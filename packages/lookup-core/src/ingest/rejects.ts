/**
 * The rejects file of `service-lookup ingest --rejects FILE`: one JSON object per rejected line,
 * written as the line is rejected, holding the line exactly as it was read, so nothing is lost:
 *
 *   {"file":"events.ndjson","line":7,"reason":"start_time: not a calendar date","raw":"{...}"}
 *
 * `raw` is the line's text (without its line ending); a line that is not UTF-8 or is too long has
 * `raw_base64` instead: its bytes in base64, streamed, so a huge line is never held whole.
 */
import { once } from 'node:events';
import { createWriteStream, type WriteStream } from 'node:fs';
import type { IngestRejection } from '../model/types.js';
import { UnreadableLine } from '../model/unreadable-line.js';

export interface RejectsFile {
  /** Writes one rejected item of `file` (a line's text, or an `UnreadableLine`). */
  write(file: string, rejection: IngestRejection, item: unknown): Promise<void>;
  close(): Promise<void>;
}

export async function openRejectsFile(path: string): Promise<RejectsFile> {
  const out = createWriteStream(path, { flags: 'w' });
  await once(out, 'open');
  const put = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  // Rejections arrive from reading and from the database at once; records are written whole, in turn.
  let last: Promise<void> = Promise.resolve();
  const inTurn = (write: () => Promise<void>) => {
    last = last.then(write);
    return last;
  };
  const record = async (file: string, { line, reason }: IngestRejection, item: unknown) => {
    const head = JSON.stringify({ file, line, reason });
    if (!(item instanceof UnreadableLine)) {
      const raw = typeof item === 'string' ? item : JSON.stringify(item);
      return put(`${head.slice(0, -1)},"raw":${JSON.stringify(raw)}}\n`);
    }
    await put(`${head.slice(0, -1)},"raw_base64":"`);
    await writeBase64(item.bytes(), put);
    await put('"}\n');
  };
  return {
    write: (file, rejection, item) => inTurn(() => record(file, rejection, item)),
    close: () => inTurn(() => closeStream(out)),
  };
}

/** Base64 of a byte stream, piece by piece: bytes are carried over to keep 3-byte groups whole. */
async function writeBase64(
  pieces: AsyncIterable<Uint8Array>,
  put: (text: string) => Promise<void>,
): Promise<void> {
  let carry = Buffer.alloc(0);
  for await (const piece of pieces) {
    const bytes = carry.length === 0 ? Buffer.from(piece) : Buffer.concat([carry, piece]);
    const whole = bytes.length - (bytes.length % 3);
    await put(bytes.subarray(0, whole).toString('base64'));
    carry = Buffer.from(bytes.subarray(whole));
  }
  await put(carry.toString('base64'));
}

function closeStream(out: WriteStream): Promise<void> {
  return new Promise((resolve, reject) =>
    out.end((error?: Error | null) => (error ? reject(error) : resolve())),
  );
}
