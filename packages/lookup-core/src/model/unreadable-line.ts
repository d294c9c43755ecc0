/**
 * A line that cannot be an event: invalid UTF-8, or longer than the limit. `ingest` rejects it
 * with `reason`; `bytes()` gives the line as it was read, once, streamed (an oversized line
 * arrives in pieces, so it can be copied somewhere without being held whole).
 */
export class UnreadableLine {
  /** Why the line cannot be an event, as the rejection reports it. */
  readonly reason: string;
  /** The line's bytes as read, streamed in pieces; may be called once. */
  readonly bytes: () => AsyncIterable<Uint8Array>;
  /** A line refused for `reason`, whose bytes `bytes()` streams. */
  constructor(reason: string, bytes: () => AsyncIterable<Uint8Array>) {
    this.reason = reason;
    this.bytes = bytes;
  }
}
