/** The few database operations the store needs, implemented by PGlite and by pg. */
export interface Queryable {
  /** One parameterised statement; rows come back as plain objects. */
  query<Row>(sql: string, params?: unknown[]): Promise<Row[]>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface Database extends Queryable {
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  close(): Promise<void>;
  /**
   * A constant statement run on every request: prepared once and then only bound and executed.
   * Parameters and columns are text; rows come back as arrays of column values.
   */
  prepared(sql: string, params: string[]): Promise<Array<Array<string | null>>>;
}
