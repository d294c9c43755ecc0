/**
 * A statement with text parameters on PGlite, its Bind message written here. PGlite's own encoder
 * measures each parameter's UTF-8 length in a JavaScript loop, twice, and copies the message three
 * times as it grows, which for a batch's tens of megabytes is a large part of the ingesting
 * thread's time (figures: docs/design/2026-11-27-measured-choices.md).
 * Rows come back as text.
 */
import { Buffer } from 'node:buffer';
import { type PGlite, protocol } from '@electric-sql/pglite';

const { serialize, messages: backend } = protocol;

/**
 * Parse `sql`, Bind `params` (the unnamed statement and portal, parameters and results as text),
 * Describe, Execute and Sync, in one buffer. Each parameter is measured and written into it by
 * Node's own UTF-8 encoder, several times faster here than `TextEncoder`.
 */
function messages(sql: string, params: string[]): Uint8Array {
  const parse = serialize.parse({ text: sql });
  const tail = [serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()];
  const lengths = params.map((p) => Buffer.byteLength(p));
  // Bind: its length, portal and statement names (empty), parameter format count (0: all text),
  // parameter count, each value after its length, result format count (0: all text). The empty
  // names and the zero counts are the zeros the buffer starts with.
  const bindLength = lengths.reduce((n, length) => n + 4 + length, 4 + 1 + 1 + 2 + 2 + 2);
  const bytes = Buffer.alloc(
    parse.byteLength + 1 + bindLength + tail.reduce((n, m) => n + m.byteLength, 0),
  );
  bytes.set(parse);
  let at = parse.byteLength;
  bytes[at] = 0x42; // 'B'
  bytes.writeInt32BE(bindLength, at + 1);
  at += 1 + 4 + 1 + 1 + 2;
  bytes.writeInt16BE(params.length, at);
  at += 2;
  params.forEach((param, i) => {
    at = bytes.writeInt32BE(lengths[i] as number, at);
    at += bytes.write(param, at, 'utf8');
  });
  at += 2;
  for (const message of tail) {
    bytes.set(message, at);
    at += message.byteLength;
  }
  return bytes;
}

/**
 * Runs `sql` with `params` inside the transaction `pg` holds open (the caller's), as PGlite's
 * `query` would: parsed, bound, described and executed, then synced. A refused statement throws
 * PGlite's error, with its SQLSTATE and constraint.
 */
export async function queryText<Row>(pg: PGlite, sql: string, params: string[]): Promise<Row[]> {
  const answer = await pg.execProtocol(messages(sql, params), { syncToFs: false });
  let columns: string[] = [];
  const rows: Row[] = [];
  for (const message of answer.messages) {
    if (message instanceof backend.RowDescriptionMessage)
      columns = message.fields.map((field) => field.name);
    else if (message instanceof backend.DataRowMessage) {
      const row: Record<string, string | null> = {};
      message.fields.forEach((value, i) => {
        row[columns[i] as string] = value;
      });
      rows.push(row as Row);
    }
  }
  return rows;
}
