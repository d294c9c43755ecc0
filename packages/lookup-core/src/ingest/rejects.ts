/**
 * The rejects file of `service-lookup ingest --rejects FILE`: one JSON object per rejected line,
 * written as the line is rejected, holding the line exactly as it was read, so nothing is lost:
 *
 *   {"file":"events.ndjson","line":7,"reason":"start_time: not a calendar date","raw":"{...}"}
 *
 * `raw` is the line's text (without its line ending); a line that is not UTF-8 or is too long has
 * `raw_base64` instead: its bytes in base64, streamed, so a huge line is never held whole.
 */
import { type FileHandle, open } from 'node:fs/promises';
import type { IngestRejection } from '../model/types.js';
import { UnreadableLine } from '../model/unreadable-line.js';

export interface RejectsFile {
  /** Writes one rejected item of `file` (a line's text, or an `UnreadableLine`). */
  write(file: string, rejection: IngestRejection, item: unknown): Promise<void>;
  close(): Promise<void>;
}

/** A write to the rejects file failed (a full disk, a quota); the message names the file. */
export class RejectsFileError extends Error {
  override readonly name = 'RejectsFileError';
  /** The system's code, e.g. `ENOSPC`. */
  readonly code: string | undefined;
  constructor(path: string, cause: unknown) {
    const code = (cause as { code?: string } | null)?.code;
    const why =
      code === 'ENOSPC'
        ? 'no space left on the device'
        : code === 'EDQUOT'
          ? 'the disk quota is exceeded'
          : (cause as Error).message;
    super(`cannot write the rejects file ${path}: ${why}${code ? ` (${code})` : ''}`, { cause });
    this.code = code;
  }
}

/** About how many bytes of records are gathered before they are written. */
const GATHER_BYTES = 64 * 1024;

/**
 * Opens `path` for rejected lines. A record that cannot be written whole is cut back off, so the
 * file never ends in part of a line, and the write fails with a `RejectsFileError`.
 */
export async function openRejectsFile(path: string): Promise<RejectsFile> {
  const out = await open(path, 'w');
  /** The file's length after the last whole record. */
  let whole = 0;
  let length = 0;
  const put = async (text: string) => {
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; ) {
      const { bytesWritten } = await out.write(bytes, at, bytes.length - at, length);
      at += bytesWritten;
      length += bytesWritten;
    }
  };
  // Rejections arrive from reading and from the database at once; records are written whole, in turn.
  let last: Promise<void> = Promise.resolve();
  const inTurn = (write: () => Promise<void>) => {
    last = last.then(write);
    return last;
  };
  const wholeRecords = async (write: () => Promise<void>) => {
    try {
      await write();
      whole = length;
    } catch (error) {
      await cutBack(out, whole);
      length = whole;
      throw new RejectsFileError(path, error);
    }
  };
  // Records are gathered and written a batch at a time: a write per record made 100,000 rejected
  // lines take longer than the stream this replaced.
  let gathered: string[] = [];
  let gatheredBytes = 0;
  const writeGathered = () => {
    if (gathered.length === 0) return Promise.resolve();
    const text = gathered.join('');
    gathered = [];
    gatheredBytes = 0;
    return wholeRecords(() => put(text));
  };
  const record = async (file: string, { line, reason }: IngestRejection, item: unknown) => {
    const head = JSON.stringify({ file, line, reason });
    if (!(item instanceof UnreadableLine)) {
      const raw = typeof item === 'string' ? item : JSON.stringify(item);
      const text = `${head.slice(0, -1)},"raw":${JSON.stringify(raw)}}\n`;
      gathered.push(text);
      gatheredBytes += text.length;
      if (gatheredBytes >= GATHER_BYTES) await writeGathered();
      return;
    }
    await writeGathered();
    await wholeRecords(async () => {
      await put(`${head.slice(0, -1)},"raw_base64":"`);
      await writeBase64(item.bytes(), put);
      await put('"}\n');
    });
  };
  return {
    write: (file, rejection, item) => inTurn(() => record(file, rejection, item)),
    close: () =>
      inTurn(async () => {
        try {
          await writeGathered();
        } finally {
          await out.close();
        }
      }),
  };
}

/** Cuts `out` back to `length` (truncating frees space, so it works on a full disk). */
async function cutBack(out: FileHandle, length: number): Promise<void> {
  try {
    await out.truncate(length);
  } catch {
    // The write's own error is the one reported.
  }
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
