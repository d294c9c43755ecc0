/**
 * A statement with text parameters on PGlite, its Bind message written here. PGlite's own encoder
 * measures each parameter's UTF-8 length in a JavaScript loop, twice, and copies the message three
 * times as it grows: for a batch's tens of megabytes that was 7.0 s of the ingesting thread's
 * 90.9 s at 1,000,000 sessions, against 1.1 s to encode them here (CPU profiles of `ingest`).
 * Rows come back as text.
 */
import { type PGlite, protocol } from '@electric-sql/pglite';

const { serialize, messages: backend } = protocol;
const utf8 = new TextEncoder();

/**
 * Parse `sql`, Bind `params` (the unnamed statement and portal, parameters and results as text),
 * Describe, Execute and Sync, in one buffer: the parameters are copied into it once.
 */
function messages(sql: string, params: string[]): Uint8Array {
  const parse = serialize.parse({ text: sql });
  const tail = [serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync()];
  const values = params.map((p) => utf8.encode(p));
  // Bind: its length, portal and statement names (empty), parameter format count (0: all text),
  // parameter count, each value after its length, result format count (0: all text). The empty
  // names and the zero counts are the zeros the buffer starts with.
  const bindLength = values.reduce((n, v) => n + 4 + v.byteLength, 4 + 1 + 1 + 2 + 2 + 2);
  const bytes = new Uint8Array(
    parse.byteLength + 1 + bindLength + tail.reduce((n, m) => n + m.byteLength, 0),
  );
  const view = new DataView(bytes.buffer);
  bytes.set(parse);
  let at = parse.byteLength;
  bytes[at] = 0x42; // 'B'
  view.setInt32(at + 1, bindLength);
  at += 1 + 4 + 1 + 1 + 2;
  view.setInt16(at, values.length);
  at += 2;
  for (const value of values) {
    view.setInt32(at, value.byteLength);
    bytes.set(value, at + 4);
    at += 4 + value.byteLength;
  }
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
