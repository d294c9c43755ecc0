/**
 * Prepared statements on PGlite. Its `query` parses and plans every statement anew; PostgreSQL's extended
 * protocol, which PGlite speaks in process, prepares a named statement once and then only binds
 * and executes it, with a generic plan after a few runs. Rows come back as text, column by column.
 */
import { type PGlite, protocol } from '@electric-sql/pglite';

const { serialize, messages: backend } = protocol;

const concat = (parts: Uint8Array[]) => {
  const bytes = new Uint8Array(parts.reduce((n, part) => n + part.byteLength, 0));
  let offset = 0;
  for (const part of parts) {
    bytes.set(part, offset);
    offset += part.byteLength;
  }
  return bytes;
};

export type PreparedRows = Array<Array<string | null>>;

/** Runs constant statements as named prepared statements of `pg`, preparing each on first use. */
export function preparedStatements(
  pg: PGlite,
): (sql: string, params: string[]) => Promise<PreparedRows> {
  const prepared = new Map<string, Promise<string>>();
  // As `pg.query` does: wait for any open transaction, then for the query lock.
  const exclusive = (message: Uint8Array) =>
    pg._runExclusiveTransaction(() =>
      pg._runExclusiveQuery(() => pg.execProtocol(message, { syncToFs: false })),
    );
  const nameOf = (sql: string) => {
    let name = prepared.get(sql);
    if (name === undefined) {
      const chosen = `service_lookup_${prepared.size + 1}`;
      name = exclusive(
        concat([serialize.parse({ name: chosen, text: sql }), serialize.sync()]),
      ).then(() => chosen);
      // A statement that failed to prepare is tried again next time, not remembered as broken.
      name.catch(() => prepared.delete(sql));
      prepared.set(sql, name);
    }
    return name;
  };
  return async (sql, params) => {
    const statement = await nameOf(sql);
    const { messages } = await exclusive(
      concat([
        serialize.bind({ statement, values: params }),
        serialize.execute({}),
        serialize.sync(),
      ]),
    );
    const rows: PreparedRows = [];
    for (const message of messages) {
      if (message instanceof backend.DataRowMessage) rows.push(message.fields);
    }
    return rows;
  };
}
