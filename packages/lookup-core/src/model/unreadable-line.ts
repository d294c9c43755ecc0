/**
 * A line that cannot be an event: invalid UTF-8, or longer than the limit. `ingest` rejects it
 * with `reason`; `bytes()` gives the line as it was read, once, streamed (an oversized line
 * arrives in pieces, so it can be copied somewhere without being held whole).
 */
export class UnreadableLine {
  readonly reason: string;
  readonly bytes: () => AsyncIterable<Uint8Array>;
  constructor(reason: string, bytes: () => AsyncIterable<Uint8Array>) {
    this.reason = reason;
    this.bytes = bytes;
  }
}
