/** The few database operations the store needs, implemented by PGlite and by pg. */
export interface Queryable {
  /** One parameterised statement; rows come back as plain objects. */
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

/** The statements of one transaction. */
export interface Transaction extends Queryable {
  /**
   * One parameterised statement whose parameters are all text, every column read back as text
   * (SQL NULL as null): how ingest sends a batch, whose parameters run to tens of megabytes.
   */
  queryText<Row>(sql: string, params: string[]): Promise<Row[]>;
}

export interface Database extends Queryable {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Transaction) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * A constant statement run on every request: prepared once and then only bound and executed.
   * Parameters and columns are text; rows come back as arrays of column values.
   */
  prepared(sql: string, params: string[]): Promise<Array<Array<string | null>>>;
}
