/** A PostgreSQL connection URL given by an operator: checked up front, shown without secrets. */
import { parseDatabaseUrl } from '../store/libpq-url.js';

/**
 * The URL's form for logs and messages: scheme, user, hosts, ports and database, never the
 * password nor the query (which may carry one). Throws a `TypeError` saying what is wrong with
 * `value` (without repeating it, lest it hold a password) when it is not a PostgreSQL URL, libpq's
 * multi-host form and `target_session_attrs` included.
 */
export function shownDatabaseUrl(value: string): string {
  return parseDatabaseUrl(value).shown;
}
